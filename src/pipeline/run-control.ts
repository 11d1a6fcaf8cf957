/**
 * The one way subscribers act back on a run, handed to them when they are wired: a hook's veto, an
 * interaction trigger's pause. Stages never call subscribers; subscribers never reach into stages.
 */
export interface RunControl {
  /** Skip a story that has emitted `story:start` but not yet begun its stages. */
  vetoStory(storyId: string, reason: string): void;
  /** Stop starting new work; the run ends paused (exit code 3). */
  requestPause(reason: string): void;
  /** Aborted on Ctrl-C / SIGTERM; every child process of the run listens to it. */
  readonly signal: AbortSignal;
}
