import type { InteractionAction } from "./interaction.js";

/**
 * The one way subscribers act back on a run, handed to them when they are wired: a hook's veto, an
 * interaction trigger's decision or pause. Stages never call subscribers; subscribers never reach into stages.
 */
export interface RunControl {
  /** Skip a story that has emitted `story:start` but not yet begun its stages. */
  vetoStory(storyId: string, reason: string): void;
  /** Stop starting new work; the run ends paused (exit code 3). */
  requestPause(reason: string): void;
  /**
   * Record an interaction's answer for the run to act on at its next boundary (docs/interaction.md).
   * `abort` also requests a pause. `storyId` is undefined for run-wide triggers (cost).
   */
  decide(storyId: string | undefined, trigger: string, action: InteractionAction): void;
  /** Raise this run's `execution.costLimitUsd` by `usd` (an approved `cost-exceeded`); returns the new limit. */
  raiseCostLimit(usd: number): number;
  /** Aborted on Ctrl-C / SIGTERM; every child process of the run listens to it. */
  readonly signal: AbortSignal;
}
