import { CONTINUE } from "../model/stage.js";
import type { VerifyResult } from "../model/verify.js";
import { runVerification } from "../verification/orchestrator.js";
import { scopedTestCommand } from "../verification/scope.js";
import { runTestIntegrity } from "../verification/strategies/test-integrity.js";
import { runTestStrength } from "../verification/strategies/test-strength.js";
import { integrityFailure, weakTests } from "./gate-feedback.js";
import type { Stage } from "./stage.js";

/** Scoped tests through the verification orchestrator. A failure is left for rectify; verify itself continues. */
export const verifyStage: Stage = {
  name: "verify",
  enabled: () => true,
  async execute(ctx) {
    const { command, note } = await scopedTestCommand(ctx);
    const result = await runVerification(ctx.run, {
      storyId: ctx.story.id,
      strategy: "scoped",
      command,
      attempt: ctx.pass,
      note,
    });
    if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
    let failed: VerifyResult | undefined = result.success ? undefined : result;
    ctx.integrity = undefined;
    if (result.success) {
      ctx.passedVerify = result;
      // Judged on every scoped pass, so each tree completion may commit has a verdict. A fail goes to
      // rectify with the evidence (it can restore a test or drop a skip) only while the gate is mandatory.
      const integrity = await runTestIntegrity(ctx, {
        acceptanceCriteria: ctx.story.acceptanceCriteria,
        judged: result.judged,
        ...(ctx.integrityAllowed ? { allowedByAnswer: ctx.integrityAllowed } : {}),
        reported: (ctx.review?.checks ?? []).filter((c) => !c.success).map((c) => c.output),
      });
      ctx.integrity = integrity;
      if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
      if (integrity.verdict === "fail" && ctx.run.mandatoryGates.includes("test-integrity")) {
        failed = integrityFailure(result, integrity, ctx.baseSha);
      }
    }
    if (!failed && result.success && ctx.run.config.verify.testStrength) {
      const strength = await runTestStrength(ctx);
      if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
      // Tests that pass without the change go to rectify like failing ones; the verdict is already in the
      // ledger as gate test-strength, so no verify:result is emitted for this.
      if (strength.verdict === "fail") failed = weakTests(result, strength, ctx.baseSha);
    }
    ctx.failureHistory.push(failed ? badness(failed.status, failed.failCount) : 0);
    ctx.verify = failed;
    return CONTINUE;
  },
};

/** How far from green a result is: fewer failing tests is progress; unreadable or broken runs rank worst. */
export function badness(status: string, failCount: number): number {
  if (status === "PASS") return 0;
  if (status === "TEST_FAILURE") return Math.max(failCount, 1);
  return Number.MAX_SAFE_INTEGER;
}
