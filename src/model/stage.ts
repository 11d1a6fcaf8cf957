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
  | { action: "fail"; reason: string }
  | { action: "escalate"; reason: string }
  | { action: "pause"; reason: string }
  | { action: "retry"; fromStage: StageName; reason: string };

export type StageAction = StageResult["action"];

export const CONTINUE: StageResult = Object.freeze({ action: "continue" });
