import { rmSync } from "node:fs";
import { join, relative } from "node:path";
import { treeOfCommit } from "../../git/commit-trees.js";
import { runGit } from "../../git/exec.js";
import { gitReason } from "../../git/git-error.js";
import { commitMerge, followBranch, mergeTrees, moveWorktree, resetWorktree } from "../../git/merge.js";
import type { RefBook } from "../../git/ref-book.js";
import { commitSubjectOf, refTip } from "../../git/worktree.js";
import { gateStates, unmetGates } from "../../ledger/gate-rule.js";
import type { Story } from "../../prd/story.js";
import type { RunContext, StoryContext } from "../../stages/context.js";
import { carryReadiness } from "../../stages/readiness-carry.js";
import { regressionStage } from "../../stages/regression.js";
import { reviewStage } from "../../stages/review.js";
import type { Stage } from "../../stages/stage.js";
import { failingChecks, storyCheck } from "../../stages/story-check.js";
import { verifyStage } from "../../stages/verify.js";
import { runStages } from "../runner.js";
import { featureBranchMoved, noteFeatureTip } from "./branch-guard.js";
import type { StoryWorktree, WorktreeHome } from "./story-worktrees.js";

/**
 * What judges a merged tree again: the story's scoped tests (and the gates verify runs), review, inline
 * regression; then (judgeAgain) the story-check commands on it, and the story's readiness pass carried.
 */
const MERGE_STAGES: readonly Stage[] = [verifyStage, reviewStage, regressionStage];

export type MergeOutcome =
  | {
      outcome: "merged";
      sha: string;
      tree: string;
      files: () => Promise<string[]>;
      /** The main worktree has followed the branch onto the merge (see MergeOptions.follow). */
      followed: Promise<unknown>;
    }
  | { outcome: "conflict"; files: string[]; reason: string }
  | { outcome: "failed"; reason: string };

/**
 * Merges a story that passed in its worktree into the feature branch. git merges the story branch with
 * the branch's tip as a tree; the worktree is moved onto that tree and judged again (a pass in the
 * worktree does not count for a different tree); only when every mandatory gate passed on the merged
 * tree is it committed, with the story's commits as second parent, and the main tree follows. A conflict
 * or a failing merged tree leaves the feature branch as it was and the worktree at the story's commit.
 */
export interface MergeOptions {
  /** The merge commit's subject; default `gantry: merge <the story commit's subject>`. */
  subject?: string;
  /** Stories marked passed with the merge; default the story merged. */
  passes?: string[];
  /** Keep gantry's folder as the merged tree has it (a shard brings its ledger), not as the branch has it. */
  gantryFromMerge?: boolean;
  /**
   * Runs the main worktree's following of the branch; default: at once, before mergeStory returns. The
   * parallel walk queues it (one at a time, in merge order) so the next merge need not wait for it.
   */
  follow?: (work: () => Promise<unknown>) => Promise<unknown>;
  /**
   * The story's stages ran to completion in its worktree in this run (not a shard's tip, not a commit a
   * crashed run left): only then may its own tree, merged unchanged, count as judged.
   */
  judgedInWorktree?: boolean;
}

export async function mergeStory(
  run: RunContext,
  home: WorktreeHome,
  book: RefBook,
  worker: { ctx: RunContext; worktree: StoryWorktree },
  story: Story,
  options: MergeOptions = {},
): Promise<MergeOutcome> {
  const { worktree } = worker;
  const tip = await run.git.head();
  const moved = featureBranchMoved(book, tip);
  if (moved) return { outcome: "failed", reason: moved };
  const storyTip = await refTip(home.top, worktree.branch);
  if (!storyTip || storyTip === worktree.base)
    return { outcome: "failed", reason: "the story's branch holds no commit to merge" };
  const merged = await mergeTrees(home.top, tip, storyTip).catch((error: unknown) =>
    cannot(run, story, error),
  );
  if ("outcome" in merged) return merged;
  // prd.json (and anything else of gantry's) is written from the run's own state, never merged as text.
  const gantryDir = `${home.prefix}.gantry/`;
  const conflicts = merged.clean ? [] : merged.conflicts.filter((f) => !f.startsWith(gantryDir));
  if (conflicts.length > 0) {
    return {
      outcome: "conflict",
      files: conflicts,
      reason: `merge conflict with the feature branch in ${conflicts.join(", ")}`,
    };
  }
  const unmoved =
    options.judgedInWorktree && tip === worktree.base
      ? await judgedInWorktree(worker.ctx, story, storyTip, merged.tree)
      : undefined;
  if (unmoved)
    run.logger.info(
      { storyId: story.id, tree: unmoved.tree },
      "the branch did not move since the story began: its merged tree is the tree judged in its worktree",
    );
  else {
    const moved = await moveWorktree(worktree.path, storyTip, merged.tree).catch((error: unknown) =>
      cannot(run, story, error),
    );
    if (moved) {
      await resetWorktree(worktree.path, storyTip);
      return moved;
    }
  }
  const judged = unmoved ?? (await judgeAgain(worker.ctx, story, tip));
  if (judged.reason !== undefined) {
    await resetWorktree(worktree.path, storyTip);
    return { outcome: "failed", reason: `on the merged tree: ${judged.reason}` };
  }
  const branch = await featureBranch(run);
  const subject = options.subject ?? `gantry: merge ${await commitSubjectOf(home.top, storyTip)}`;
  const passes = options.passes ?? [story.id];
  for (const id of passes) run.stories.update(id, { status: "passed", failureReason: null });
  const indexFile = join(home.commonDir, "gantry", `merge-${process.pid}.index`);
  let sha: string;
  try {
    // Only the branch's move is under the book (a ref other sessions' tamper checks must know as gantry's).
    sha = await commitMerge(
      {
        cwd: home.top,
        tree: judged.tree,
        base: tip,
        story: storyTip,
        branch,
        gantryDir: `${home.prefix}.gantry`,
        ...(options.gantryFromMerge ? { gantryFrom: merged.tree } : {}),
        prd: { path: relative(home.top, run.stories.path), file: run.stories.path },
        subject,
        indexFile,
      },
      (move) => book.exclusive(async () => book.record(branch, await move())),
    );
  } catch (error) {
    for (const id of passes) run.stories.update(id, { status: "in-progress" });
    await resetWorktree(worktree.path, storyTip);
    return { outcome: "failed", reason: `the merge commit did not land: ${(error as Error).message}` };
  } finally {
    rmSync(indexFile, { force: true });
  }
  noteFeatureTip(book, sha);
  const follow = () => followBranch(home.top, home.prefix, tip, sha);
  const followed = options.follow ? options.follow(follow) : await follow();
  const files = async () => {
    const out = await runGit(run.root, ["diff", "--name-only", "--relative", tip, sha]);
    return out.split("\n").filter(Boolean);
  };
  return { outcome: "merged", sha, tree: judged.tree, files, followed: Promise.resolve(followed) };
}

/**
 * When the feature branch is still where the story branched from, the merged tree is the story commit's
 * own tree, which its worktree judged in this run just before committing it. It counts only when the
 * worktree still holds exactly that tree (a judge of the disk says so) and every mandatory gate of the story
 * passed on it (the one rule, as completion applied it); else undefined, and the merge is judged again.
 */
async function judgedInWorktree(
  ctx: RunContext,
  story: Story,
  storyTip: string,
  mergedTree: string,
): Promise<{ tree: string; reason?: undefined } | undefined> {
  const storyTree =
    treeOfCommit(storyTip) ?? (await runGit(ctx.root, ["rev-parse", `${storyTip}^{tree}`])).trim();
  if (mergedTree !== storyTree) return undefined;
  const judged = await ctx.git.judge({ recheck: true });
  if (judged.sha !== storyTip || !(await ctx.git.sameContent(storyTip, judged.tree))) return undefined;
  const unmet = unmetGates(
    gateStates(ctx.verdicts.entries, judged.tree, ctx.mandatoryGates, { storyId: story.id }),
  );
  return unmet.length === 0 ? { tree: judged.tree } : undefined;
}

/** The story's gates on the worktree as it is now (the merged tree), its changes measured from `base`. */
async function judgeAgain(
  ctx: RunContext,
  story: Story,
  base: string,
): Promise<{ tree: string; reason?: string }> {
  const sctx: StoryContext = {
    run: ctx,
    story,
    logger: ctx.logger.child({ storyId: story.id }),
    tier: "merge",
    pass: story.attempts ?? 1,
    baseSha: base,
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
  };
  const outcome = await runStages(MERGE_STAGES, sctx, {
    bus: ctx.bus,
    maxStageRetries: 0,
    signal: ctx.signal,
  });
  const judged = await ctx.git.judge();
  if (outcome.action !== "continue") return { tree: judged.tree, reason: outcome.reason };
  // "The app still works after this story" is a claim about the tree committed: the merged one.
  const app = await storyCheck(sctx, "merge", judged);
  if (app && app.verdict !== "pass")
    return {
      tree: judged.tree,
      reason: ctx.signal.aborted ? "interrupted" : `story-check: ${failingChecks(app.checks)}`,
    };
  carryReadiness(sctx, judged);
  const unmet = unmetGates(
    gateStates(ctx.verdicts.entries, judged.tree, ctx.mandatoryGates, { storyId: story.id }),
  );
  if (unmet.length > 0)
    return { tree: judged.tree, reason: `not every mandatory gate passed: ${unmet.join("; ")}` };
  return { tree: judged.tree };
}

/**
 * A merge git cannot make (a merge-tree that fails, a worktree it cannot move onto the merged tree) is a
 * merge that did not happen, asked through the merge-conflict trigger like a conflict, never a run's end.
 */
function cannot(run: RunContext, story: Story, error: unknown): { outcome: "failed"; reason: string } {
  run.logger.warn({ storyId: story.id, err: error }, "git could not make the merge");
  return { outcome: "failed", reason: `git could not make the merge: ${gitReason(error)}` };
}

async function featureBranch(run: RunContext): Promise<string> {
  const name = await run.git.branch();
  if (name === undefined) throw new Error("HEAD is detached; the feature branch is gone");
  return `refs/heads/${name}`;
}
