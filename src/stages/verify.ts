import { CONTINUE, type Stage } from "../pipeline/stage.js";
import { runVerification } from "../verification/orchestrator.js";
import { scopedTestCommand } from "../verification/scope.js";

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
    ctx.failureHistory.push(badness(result.status, result.failCount));
    ctx.verify = result.success ? undefined : result;
    return CONTINUE;
  },
};

/** How far from green a result is: fewer failing tests is progress; unreadable or broken runs rank worst. */
export function badness(status: string, failCount: number): number {
  if (status === "PASS") return 0;
  if (status === "TEST_FAILURE") return Math.max(failCount, 1);
  return Number.MAX_SAFE_INTEGER;
}
