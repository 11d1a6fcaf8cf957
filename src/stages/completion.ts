import { mkdirSync, renameSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { gateStates, unmetGates } from "../ledger/gate-rule.js";
import { placeInOrder } from "../util/ordered-writes.js";
import { oneLine } from "../util/text.js";
import { changedNothing } from "./agent-step.js";
import type { StoryContext } from "./context.js";
import { carryReadiness } from "./readiness-carry.js";
import type { Stage } from "./stage.js";
import { storyCheckAtExit } from "./story-check.js";

/**
 * The last guard: the story passes only if this run's verdicts hold a pass (or not-applicable) for every
 * mandatory gate on the exact tree being committed. Then prd.json says passed and the work is committed.
 */
export const completionStage: Stage = {
  name: "completion",
  enabled: () => true,
  async execute(ctx) {
    const { run, story } = ctx;
    // The last guard looks at the disk whatever ran before it: what it judges here is what is committed.
    const judging = run.git.judge({ recheck: true });
    const subject = commitSubject(story.id, story.title);
    const passed = {
      status: "passed",
      attempts: ctx.pass,
      costUsd: round(ctx.costUsd),
      failureReason: null,
    } as const;
    // The commit made ahead while that recheck's status runs (commit-prepare.ts): nothing published, and the
    // commit takes it only for the tree judged now, with prd.json as written below. Only where it pays.
    if (run.git.prepareCommit && run.git.commitAheadPays?.()) {
      const prd = run.stories.preview(story.id, passed);
      const contents = new Map(prd ? [[prd.path, Buffer.from(prd.content)]] : []);
      nextTurn().then(() => run.git.prepareCommit?.(subject, contents));
    }
    // The ignored files are listed once the judge is done (the repository's queue orders the two): the
    // listing takes the folders the judge's status just checked from git's untracked cache.
    const before = ctx.ignoredAtStart;
    const listing = before ? nextTurn().then(() => run.git.newIgnoredSources(before)) : Promise.resolve([]);
    listing.catch(() => undefined);
    const judged = await judging;
    if (await changedNothing(ctx, judged))
      return { action: "fail", reason: "the story changed nothing; an empty change is not a story done" };
    // Only what a session made: a test run or the worktree's setup writing an ignored file is not the story's doing.
    const hidden = (await listing).filter((path) => ctx.ignoredBySessions?.has(path));
    if (hidden.length > 0) {
      const kept = setAsideIgnored(run, hidden);
      const list = `${hidden.slice(0, 10).join(", ")}${hidden.length > 10 ? `, … (${hidden.length})` : ""}`;
      return {
        action: "fail",
        reason: `the story's sessions created ignored source files that its commit would not carry: ${list}; moved to ${kept}`,
      };
    }
    const broken = await storyCheckAtExit(ctx, judged);
    if (broken) return broken;
    carryReadiness(ctx, judged);
    const unmet = unmetGates(
      gateStates(run.verdicts.entries, judged.tree, run.mandatoryGates, { storyId: story.id }),
    );
    if (unmet.length > 0)
      return { action: "fail", reason: `not every mandatory gate passed on this tree: ${unmet.join("; ")}` };
    // One durable step: both files' contents synced side by side, then `committing` renamed into place and
    // its folder synced before prd.json's `passed` is: never a passed story without the marker resume needs.
    // prd.json's folder is synced while the commit is built; the branch moves only once it is.
    const placed = await placeInOrder([
      run.state.stage({ committing: { storyId: story.id, subject, tree: judged.tree } }),
      run.stories.stage(story.id, passed),
    ]);
    try {
      await run.git.commitJudged(judged, subject, { ready: placed.synced });
    } catch (error) {
      await placed.synced;
      run.stories.update(story.id, { status: "in-progress" });
      run.state.update({ committing: undefined });
      return { action: "fail", reason: `the commit did not land as judged: ${(error as Error).message}` };
    }
    // Cleared with the next write (the next pass's start or the run's end): a crash before that leaves
    // `committing`, which resume reconciles from git (the commit landed with the judged tree: it stands).
    run.state.defer({ committing: undefined });
    return { action: "continue" };
  },
};

/** After the I/O of this turn of the event loop: a child a judge starts meanwhile is running by then. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `gantry(US-1): title` on one line: no control characters reach git's subject (or a terminal showing it). */
export function commitSubject(id: string, title: string): string {
  return `gantry(${oneLine(id)}): ${oneLine(title)}`;
}

/** Moves ignored files a story made into its run directory: kept, but no later story can lean on them. */
function setAsideIgnored(run: StoryContext["run"], paths: string[]): string {
  const into = join(run.runDir, "set-aside");
  const top = run.git.top;
  for (const path of paths) {
    mkdirSync(dirname(join(into, path)), { recursive: true });
    renameSync(join(top, path), join(into, path));
  }
  return relative(run.root, into);
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
