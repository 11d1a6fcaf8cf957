import { gateStates, unmetGates } from "../ledger/gate-rule.js";
import { changedNothing } from "./agent-step.js";
import type { Stage } from "./stage.js";

/**
 * The last guard: the story passes only if this run's verdicts hold a pass (or not-applicable) for every
 * mandatory gate on the exact tree being committed. Then prd.json says passed and the work is committed.
 */
export const completionStage: Stage = {
  name: "completion",
  enabled: () => true,
  async execute(ctx) {
    const { run, story } = ctx;
    if (await changedNothing(ctx))
      return { action: "fail", reason: "the story changed nothing; an empty change is not a story done" };
    const judged = await run.git.judge();
    const unmet = unmetGates(
      gateStates(run.verdicts.entries, judged.tree, run.mandatoryGates, { storyId: story.id }),
    );
    if (unmet.length > 0)
      return { action: "fail", reason: `not every mandatory gate passed on this tree: ${unmet.join("; ")}` };
    const subject = `gantry(${story.id}): ${story.title.replace(/\s+/g, " ").trim()}`;
    run.state.update({ committing: { storyId: story.id, subject } });
    run.stories.update(story.id, {
      status: "passed",
      attempts: ctx.pass,
      costUsd: round(ctx.costUsd),
      failureReason: null,
    });
    await run.git.commitAll(subject);
    run.state.update({ committing: undefined });
    return { action: "continue" };
  },
};

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
