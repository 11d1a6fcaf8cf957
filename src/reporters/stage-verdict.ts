import type { StageAction, StageName } from "../model/stage.js";

/**
 * How a stage went, which is not what it does next: a verify whose tests fail `continue`s to rectify, and is a
 * `fail`. `retry` is a stage that sent the pass back (rectify, autofix); `paused` and `skipped` stopped it.
 */
export type StageVerdict = "pass" | "fail" | "retry" | "paused" | "skipped";

/** Rectify and autofix are enabled only by a failure (stages/rectify.ts, autofix.ts): a stage leading to one failed. */
export const failedBefore = (next: StageName | undefined): boolean =>
  next === "rectify" || next === "autofix";

/**
 * A stage's verdict from what it asked for next and whether a gate it ran failed. Going on to rectify or autofix
 * is a failure too: they run only after a failed verify or review.
 */
export function stageVerdict(action: StageAction, gateFailed: boolean): StageVerdict {
  switch (action) {
    case "continue":
      return gateFailed ? "fail" : "pass";
    case "retry":
      // A stage whose gate failed and that sends the pass back (inline regression → rectify) failed.
      return gateFailed ? "fail" : "retry";
    case "pause":
      return "paused";
    case "skip":
      return "skipped";
    default:
      return "fail";
  }
}

/** `verify fail → rectify`, `rectify retry → verify`, `review fail → escalate`: the verdict, then the action. */
export function stageOutcome(s: {
  verdict: StageVerdict;
  action: StageAction;
  next?: StageName;
  fromStage?: StageName;
}): string {
  if (s.action === "continue") return `${s.verdict} → ${s.next ?? "done"}`;
  if (s.action === "retry") return `${s.verdict} → ${s.fromStage ?? "retry"}`;
  if (s.action === "escalate") return `${s.verdict} → escalate`;
  return s.verdict;
}
