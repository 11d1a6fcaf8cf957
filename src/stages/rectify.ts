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
    const what = `${failed.strategy} tests ${failed.status} (${failed.failCount} failed)`;
    if (!settings.enabled) return { action: "escalate", reason: `${what}; rectify is disabled` };
    if (ctx.rectifyAttempts >= settings.maxAttempts) {
      return { action: "escalate", reason: `${what} after ${ctx.rectifyAttempts} rectify attempts` };
    }
    const history = ctx.failureHistory;
    if (ctx.rectifyAttempts > 0 && history.length >= 2 && (history.at(-1) ?? 0) >= (history.at(-2) ?? 0)) {
      return { action: "escalate", reason: `${what}; the last rectify did not reduce the failures` };
    }
    const exhausted = noRetryLeft(ctx, "rectify");
    if (exhausted) return exhausted;
    ctx.rectifyAttempts += 1;
    ctx.run.bus.emit("rectify:attempt", {
      storyId: ctx.story.id,
      attempt: ctx.rectifyAttempts,
      maxAttempts: settings.maxAttempts,
      failures: failed.failures,
    });
    const stopped = await agentStep(ctx, "rectify", {
      failures: failed.failures,
      rawOutputTail: failed.rawOutputTail,
    });
    if (stopped) return stopped;
    return {
      action: "retry",
      fromStage: "verify",
      reason: `rectify attempt ${ctx.rectifyAttempts}: ${what}`,
    };
  },
};
