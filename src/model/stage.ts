export const STAGE_NAMES = [
  "routing",
  "execution",
  "verify",
  "rectify",
  "review",
  "autofix",
  "regression",
  "completion",
] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export type StageResult =
  | { action: "continue" }
  | { action: "skip"; reason: string }
  /**
   * `retryLimit`: the pass ended because it had no retry left (MAX_STAGE_RETRIES), not on a failed check.
   * `tamper`: an agent session changed what judges its work (stages/session-guard.ts).
   * `agentBlocked`: the agent ended with `## STORY BLOCKED`; its reason (no higher tier is tried).
   */
  | { action: "fail"; reason: string; retryLimit?: true; tamper?: true; agentBlocked?: string }
  | { action: "escalate"; reason: string }
  | { action: "pause"; reason: string }
  | { action: "retry"; fromStage: StageName; reason: string };

export type StageAction = StageResult["action"];

export const CONTINUE: StageResult = Object.freeze({ action: "continue" });
