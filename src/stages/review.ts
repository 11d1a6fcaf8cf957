import { CONTINUE, type Stage } from "../pipeline/stage.js";
import { runReview } from "../review/orchestrator.js";

/** Typecheck and lint. A failure is left for autofix; review itself continues. */
export const reviewStage: Stage = {
  name: "review",
  enabled: () => true,
  async execute(ctx) {
    const result = await runReview(ctx.run, ctx.story.id, ctx.pass);
    if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
    ctx.review = result.success ? undefined : result;
    return CONTINUE;
  },
};
