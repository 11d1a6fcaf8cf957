import type { StoryStatus } from "./story.js";

export interface RunSummary {
  passed: number;
  failed: number;
  skipped: number;
  blocked: number;
  paused: number;
  durationMs: number;
  costUsd: number;
  /** How the total is known: every session exact, some, estimated from prices, or not at all. */
  costBasis: "exact" | "partial" | "estimated" | "unknown";
}

export interface StoryMetrics {
  durationMs: number;
  costUsd: number;
  attempts: number;
  tier: string;
  agentCalls: number;
}

/** The statuses a story can end a run in, counted in the summary. */
export type EndStatus = "passed" | "failed" | "skipped" | "blocked" | "paused";

/** How many of `statuses` are each end status. */
export function countEnds(statuses: readonly StoryStatus[]): Record<EndStatus, number> {
  const count = (status: EndStatus) => statuses.filter((s) => s === status).length;
  return {
    passed: count("passed"),
    failed: count("failed"),
    skipped: count("skipped"),
    blocked: count("blocked"),
    paused: count("paused"),
  };
}

/** Why a run stopped on an error (`run:error`): one of the codes of `model/errors.ts`. */
export type { ErrorCode as RunErrorCode } from "./errors.js";
