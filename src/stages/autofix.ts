import { runMechanicalFixes } from "../review/autofix.js";
import { agentStep, noRetryLeft } from "./agent-step.js";
import type { Stage } from "./stage.js";

/**
 * Only after a failed review. Each attempt first runs lintFix and formatFix; when they changed nothing,
 * a short agent session gets the findings. Then verify and review run again: the tests must judge the
 * fixed tree too. Bounded by `autofix.maxAttempts`; with autofix off, a failed review escalates.
 */
export const autofixStage: Stage = {
  name: "autofix",
  enabled: (ctx) => ctx.review !== undefined,
  async execute(ctx) {
    const failed = ctx.review;
    if (!failed) return { action: "continue" };
    const settings = ctx.run.config.execution.autofix;
    const failing = failed.checks.filter((c) => !c.success).map((c) => c.name);
    const what = `review failed (${failing.join(", ")})`;
    if (!settings.enabled) return { action: "escalate", reason: `${what}; autofix is disabled` };
    if (ctx.autofixAttempts >= settings.maxAttempts) {
      return { action: "escalate", reason: `${what} after ${ctx.autofixAttempts} autofix attempts` };
    }
    const exhausted = noRetryLeft(ctx, "autofix");
    if (exhausted) return exhausted;
    ctx.autofixAttempts += 1;
    const before = await ctx.run.git.judge();
    const ran = await runMechanicalFixes(ctx.run, ctx.story.id);
    const after = ran.length > 0 ? await ctx.run.git.judge() : before;
    if (after.tree !== before.tree) {
      return {
        action: "retry",
        fromStage: "verify",
        reason: `autofix attempt ${ctx.autofixAttempts}: ${ran.join(", ")} changed files`,
      };
    }
    ctx.run.bus.emit("autofix:attempt", {
      storyId: ctx.story.id,
      fixType: "agent",
      command: ctx.run.agent.name,
    });
    const stopped = await agentStep(ctx, "autofix", {
      findings: failed.checks,
      ...(ctx.reviewNotes?.length ? { reviewNotes: ctx.reviewNotes } : {}),
    });
    if (stopped) return stopped;
    return {
      action: "retry",
      fromStage: "verify",
      reason: `autofix attempt ${ctx.autofixAttempts}: agent session on ${what}`,
    };
  },
};
