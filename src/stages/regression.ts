import { CONTINUE } from "../model/stage.js";
import { runVerification } from "../verification/orchestrator.js";
import type { Stage } from "./stage.js";
import { badness } from "./verify.js";

/** The full suite after each story when `regression.mode` is inline; failures go back through rectify. */
export const regressionStage: Stage = {
  name: "regression",
  enabled: (ctx) => ctx.run.config.execution.regression.mode === "inline",
  async execute(ctx) {
    const result = await runVerification(ctx.run, {
      storyId: ctx.story.id,
      strategy: "regression",
      command: ctx.run.config.quality.commands.test,
      attempt: ctx.pass,
    });
    if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
    if (result.success) return CONTINUE;
    ctx.verify = result;
    ctx.failureHistory.push(badness(result.status, result.failCount));
    return {
      action: "retry",
      fromStage: "rectify",
      reason: `regression ${result.status} (${result.failCount} failed)`,
    };
  },
};
