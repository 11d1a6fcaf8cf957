import { CONTINUE } from "../model/stage.js";
import { pluginsOf } from "../plugins/registry.js";
import { runReview } from "../review/orchestrator.js";
import type { StoryContext } from "./context.js";
import { reviewPanel } from "./review-panel.js";
import type { Stage } from "./stage.js";

/** What the story changed: its base commit against the judged tree, a diff of two trees. */
async function changedSinceBase(ctx: StoryContext): Promise<string[]> {
  const judged = await ctx.run.git.judge({ deferStatCheck: true });
  return ctx.run.git.changedFiles(ctx.baseSha, judged.tree);
}

/** Typecheck, lint, then the plugin reviewers. A failure is left for autofix; review itself continues. */
export const reviewStage: Stage = {
  name: "review",
  enabled: () => true,
  async execute(ctx) {
    const { reviewers } = pluginsOf(ctx.run);
    const changed = reviewers.length > 0 ? await changedSinceBase(ctx).catch(() => undefined) : undefined;
    const result = await runReview(ctx.run, ctx.story.id, ctx.pass, { reviewers, changedFiles: changed });
    if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
    ctx.review = result.success ? undefined : result;
    return (await reviewPanel(ctx)) ?? CONTINUE;
  },
};
