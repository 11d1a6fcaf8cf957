import { UNREADABLE_MEANING, type VerifyResult } from "../model/verify.js";
import { agentStep, noRetryLeft } from "./agent-step.js";
import type { Stage } from "./stage.js";

/**
 * Only after a failed verify (or regression): an agent session given the structured failures, then
 * verify again. Bounded by `rectify.maxAttempts`; stops early when failures do not go down. With
 * rectify off, a failed verify escalates: a disabled stage never turns a failure into a pass.
 */
export const rectifyStage: Stage = {
  name: "rectify",
  enabled: (ctx) => ctx.verify !== undefined,
  async execute(ctx) {
    const failed = ctx.verify;
    if (!failed) return { action: "continue" };
    const settings = ctx.run.config.execution.rectify;
    const what = failureOf(failed);
    if (!settings.enabled) return { action: "escalate", reason: `${what}; rectify is disabled` };
    if (ctx.rectifyAttempts >= settings.maxAttempts) {
      return { action: "escalate", reason: `${what} after ${ctx.rectifyAttempts} rectify attempts` };
    }
    const history = ctx.failureHistory;
    // Counts compare only when they count the same thing: tests that went green and a later gate that
    // failed is progress of another kind, left to the attempts' bound.
    const sameKind = failed.gate === ctx.rectifiedFrom?.gate;
    if (
      ctx.rectifyAttempts > 0 &&
      sameKind &&
      history.length >= 2 &&
      (history.at(-1) ?? 0) >= (history.at(-2) ?? 0)
    ) {
      return { action: "escalate", reason: noProgress(failed, ctx.rectifiedFrom) };
    }
    const exhausted = noRetryLeft(ctx, "rectify");
    if (exhausted) return exhausted;
    ctx.rectifyAttempts += 1;
    ctx.rectifiedFrom = {
      status: failed.status,
      failCount: failed.failCount,
      ...(failed.reason ? { reason: failed.reason } : {}),
      ...(failed.gate ? { gate: failed.gate } : {}),
    };
    ctx.run.bus.emit("rectify:attempt", {
      storyId: ctx.story.id,
      attempt: ctx.rectifyAttempts,
      maxAttempts: settings.maxAttempts,
      failures: failed.failures,
    });
    const stopped = await agentStep(ctx, "rectify", {
      failures: failed.failures,
      rawOutputTail: failed.rawOutputTail,
      verdict: {
        status: failed.status,
        ...(failed.reason ? { reason: failed.reason } : {}),
        ...(failed.outputHead ? { outputHead: failed.outputHead } : {}),
        ...(failed.gate ? { gate: failed.gate } : {}),
      },
      ...(ctx.reviewNotes?.length ? { reviewNotes: ctx.reviewNotes } : {}),
    });
    if (stopped) return stopped;
    return {
      action: "retry",
      fromStage: "verify",
      reason: `rectify attempt ${ctx.rectifyAttempts}: ${what}`,
    };
  },
};

type Outcome = Pick<VerifyResult, "status" | "failCount" | "reason" | "gate">;

/** Longest a gate's reason is quoted in a stage's reason (the rectify prompt has all of it). */
const GATE_REASON = 300;

/**
 * What failed, by its real cause: `scoped tests TEST_FAILURE (2 failed)`, or the gate judged after green
 * tests with what it found (`test-integrity: src/a.py:3: new # type: ignore …`).
 */
export function failureOf(result: VerifyResult): string {
  if (!result.gate) return `${testsOf(result)} ${outcomeOf(result)}`;
  const reason = result.reason ?? `${result.gate} failed`;
  return reason.length <= GATE_REASON ? reason : `${reason.slice(0, GATE_REASON)}…`;
}

/** `3 findings`, `1 failing check`: what a gate's failure count counts. */
function gateCount(gate: string, count: number): string {
  const noun =
    gate === "story-check"
      ? "failing check"
      : gate === "test-strength"
        ? "weak test file"
        : gate === "review-decision"
          ? "blocker"
          : "finding";
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `scoped tests`, or plain `tests` when the scoped step ran the full suite (no testScoped command, nothing mapped). */
function testsOf(result: VerifyResult): string {
  return result.strategy === "scoped" && result.scope?.startsWith("full suite")
    ? "tests"
    : `${result.strategy} tests`;
}

/** `TEST_FAILURE (2 failed)`, or a status that is no test verdict with what it means (its reason leads with it). */
function outcomeOf(result: Outcome): string {
  if (result.status === "TEST_FAILURE") return `TEST_FAILURE (${result.failCount} failed)`;
  if (result.reason?.startsWith(`${result.status}:`)) return result.reason;
  const meaning = UNREADABLE_MEANING[result.status];
  return meaning ? `${result.status}: ${meaning}` : result.status;
}

/** Why rectify stops early: fewer failures was not reached, or the status changed — named, never hidden. */
function noProgress(now: VerifyResult, before: Outcome | undefined): string {
  if (now.gate) {
    const counts = before ? ` (${before.failCount} → ${gateCount(now.gate, now.failCount)})` : "";
    return `${failureOf(now)}; the last rectify did not reduce what ${now.gate} found${counts}`;
  }
  const tests = testsOf(now);
  if (!before || (before.status === "TEST_FAILURE" && now.status === "TEST_FAILURE")) {
    const counts = before ? ` (${before.failCount} → ${now.failCount} failed)` : "";
    return `${tests} ${outcomeOf(now)}; the last rectify did not reduce the failures${counts}`;
  }
  if (before.status === now.status) return `${tests} still ${outcomeOf(now)} after the last rectify`;
  return `${tests} went from ${outcomeOf(before)} to ${outcomeOf(now)}`;
}
