import type { StoryContext } from "../stages/context.js";
import { failingChecks, fixBrokenApp, storyCheck } from "../stages/story-check.js";
import { interactive, takeDecision } from "./story-decisions.js";

/**
 * The between-stories check before a story's first agent session, on the committed tree it starts from.
 * A failure means an earlier story (or the baseline) left the app broken: the run halts before spending
 * on this story, unless the `story-check` trigger answers `retry` (one autofix session, then the check
 * again). Returns why the run must stop, or undefined to go on.
 */
export async function checkBeforeStory(ctx: StoryContext): Promise<string | undefined> {
  const { run } = ctx;
  const outcome = await storyCheck(ctx, "entry");
  if (!outcome || outcome.verdict === "pass") return undefined;
  if (run.signal.aborted) return "interrupted";
  const reason = `story-check before ${ctx.story.id}: the committed app fails ${failingChecks(outcome.checks)}`;
  if (!interactive(run)) return reason;
  await run.bus.flush();
  if (takeDecision(run, ctx.story.id, "story-check") !== "retry")
    return `${reason}; interaction story-check: stop`;
  const fixed = await fixBrokenApp(ctx, outcome.checks);
  return fixed && "reason" in fixed ? fixed.reason : undefined;
}
