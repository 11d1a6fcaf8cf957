import PQueue from "p-queue";
import { resetWorktree } from "../../git/merge.js";
import { RefBook } from "../../git/ref-book.js";
import { commitSubjectOf } from "../../git/worktree.js";
import { type Story, summarize } from "../../prd/story.js";
import { commitSubject } from "../../stages/completion.js";
import type { RunContext } from "../../stages/context.js";
import { costCapReached } from "../../stages/cost-cap.js";
import type { PassedStory } from "../../stages/post-run/deferred-regression.js";
import { interactive, takeDecision } from "../story-decisions.js";
import { executeStory, type StoryOutcome } from "../story-executor.js";
import { noteFeatureTip } from "./branch-guard.js";
import { mainCheckoutImports } from "./main-checkout-imports.js";
import { mergeStory } from "./merge-back.js";
import {
  openStoryWorktree,
  retireStoryWorktree,
  type StoryWorktree,
  storyWorktrees,
  type WorktreeHome,
  worktreeHome,
} from "./story-worktrees.js";
import { workerContext } from "./worker-context.js";
import { setUpWorktree } from "./worktree-setup.js";

export interface ParallelWalk {
  outcomes: (StoryOutcome & { storyId: string })[];
  pauseReason?: string;
}

interface Worked {
  outcome: StoryOutcome;
  /** Its stages ran here, in this run (not a finished commit a crashed run left). */
  judgedHere: boolean;
  worktree: StoryWorktree;
  worker: Awaited<ReturnType<typeof workerContext>>;
}

/**
 * `--parallel N`: the selected stories as a DAG by `dependencies`. A story starts once every dependency
 * in the selection has settled, in its own worktree on its own branch from the feature branch's tip at
 * that moment, at most `workers` at once (p-queue). A story that passes there is merged back one at a
 * time in the order stories finish (merge-back.ts); a conflict or a failing merged tree asks the
 * `merge-conflict` trigger (fallback: run the story once more on the new tip, then fail). Worktrees a
 * crashed run left are taken up: a finished story's commit is merged, an unfinished story resumes in its
 * worktree. Returns the merged stories, in merge order, for the deferred regression.
 */
export async function walkInParallel(
  run: RunContext,
  selected: Story[],
  workers: number,
  walk: ParallelWalk,
  warn: (line: string) => void = () => undefined,
): Promise<PassedStory[]> {
  const home = await worktreeHome(run.root, run.feature, run.git.locations);
  const leak = run.config.execution.worktreeSetup ? undefined : mainCheckoutImports(home.top, run.root);
  if (leak) {
    run.logger.warn({ reason: leak }, "story worktrees would import the main checkout's code");
    warn(`gantry: warning: ${leak}`);
  }
  const book = new RefBook();
  noteFeatureTip(book, await run.git.head());
  const leftovers = await storyWorktrees(
    home,
    selected.map((s) => s.id),
  );
  const queue = new PQueue({ concurrency: Math.max(1, workers) });
  const merges = new PQueue({ concurrency: 1 });
  // The main worktree follows each merge in merge order, while the next merge is judged.
  const follows = new PQueue({ concurrency: 1 });
  const follow = (work: () => Promise<unknown>) => follows.add(work);
  const passed: PassedStory[] = [];
  const ids = new Set(selected.map((s) => s.id));
  const settled = new Set<string>();
  const started = new Set<string>();
  const inFlight = new Map<string, Promise<void>>();
  const rerun = new Set<string>();
  const errors: unknown[] = [];
  const stopping = () =>
    run.signal.aborted ||
    run.requests.pauseReason !== undefined ||
    walk.pauseReason !== undefined ||
    errors.length > 0;
  const record = (storyId: string, outcome: StoryOutcome) => walk.outcomes.push({ ...outcome, storyId });

  /** One story's work in a worker slot; undefined when the run began stopping before its turn. */
  const work = async (story: Story): Promise<Worked | undefined> => {
    if (stopping()) return undefined;
    // Every worker's spend counts against one cap: past it, a story not begun is not begun (it keeps its place).
    let capped = costCapReached(run);
    if (capped && interactive(run)) {
      // The cost-exceeded trigger's answer (a raised cap) may still be on its way.
      await run.bus.flush();
      if (stopping()) return undefined;
      capped = costCapReached(run);
    }
    if (capped) {
      walk.pauseReason ??= capped;
      return undefined;
    }
    let judgedHere = false;
    const leftover = leftovers.get(story.id);
    leftovers.delete(story.id);
    const worktree = leftover ?? (await openStoryWorktree(home, book, story.id, await run.git.head()));
    const worker = await workerContext(run, home, book, worktree);
    const unready = await setUpWorktree(worker.ctx, story.id);
    if (unready !== undefined) {
      run.stories.update(story.id, { status: "failed", failureReason: unready });
      run.bus.emit("story:fail", { story: summarize(story), reason: unready });
      return { outcome: { status: "failed", reason: unready, agentCalls: 0 }, judgedHere, worktree, worker };
    }
    let outcome: StoryOutcome;
    if (leftover && (await finishedEarlier(home, leftover, story))) {
      // Its commit landed on the story branch before the last run stopped: merge it (it is judged again).
      await resetWorktree(leftover.path, leftover.head);
      outcome = { status: "passed", agentCalls: 0 };
    } else {
      outcome = await executeStory(worker.ctx, story);
      judgedHere = true;
    }
    // Passed in its worktree is not passed yet: only the merge into the feature branch makes it so.
    if (outcome.status === "passed") run.stories.update(story.id, { status: "in-progress" });
    return { outcome, judgedHere, worktree, worker };
  };

  const carry = async (story: Story): Promise<void> => {
    if (story.dependencies.some((d) => run.stories.status(d) !== "passed")) {
      record(story.id, await executeStory(run, story)); // blocked, announced by the executor
      return;
    }
    const worked = await queue.add(() => work(story));
    if (!worked) return;
    const { outcome, judgedHere, worktree, worker } = worked;
    if (outcome.status !== "passed") {
      worker.close();
      if (outcome.status === "paused") {
        // Left as it is: the next run resumes the story in this worktree.
        walk.pauseReason ??= outcome.reason ?? "paused";
      } else await retireStoryWorktree(home, book, worktree, false);
      record(story.id, outcome);
      return;
    }
    const merged = await merges.add(() =>
      mergeStory(run, home, book, { ctx: worker.ctx, worktree }, story, {
        follow,
        judgedInWorktree: judgedHere,
        // The story's commit is completion's, made here with this subject: git need not be asked for it.
        ...(judgedHere ? { subject: `gantry: merge ${commitSubject(story.id, story.title)}` } : {}),
      }),
    );
    worker.close();
    if (merged.outcome === "merged") await merged.followed;
    const asks = run.config.interaction.triggers["merge-conflict"]?.enabled === true;
    const next = asks ? "ask" : !rerun.has(story.id) && !stopping() ? "retry" : "fail";
    run.bus.emit("story:merge", {
      storyId: story.id,
      outcome: merged.outcome,
      ...(merged.outcome === "merged"
        ? { sha: merged.sha, tree: merged.tree }
        : { reason: merged.reason, ...(run.signal.aborted ? {} : { next }) }),
      ...(merged.outcome === "conflict" ? { files: merged.files } : {}),
    });
    if (merged.outcome === "merged") {
      await retireStoryWorktree(home, book, worktree, true);
      passed.push({ id: story.id, files: merged.files });
      record(story.id, outcome);
      return;
    }
    if (run.signal.aborted) {
      run.stories.update(story.id, { status: "paused" });
      record(story.id, { status: "paused", reason: "interrupted", agentCalls: outcome.agentCalls });
      return;
    }
    await run.bus.flush();
    const answer = interactive(run) ? takeDecision(run, story.id, "merge-conflict") : undefined;
    const kept = await retireStoryWorktree(home, book, worktree, false);
    const where = kept ? `; its work is kept in ${kept}` : "";
    if (answer === "abort") {
      walk.pauseReason ??= `${story.id}: ${merged.reason}; interaction merge-conflict answered abort`;
      run.stories.update(story.id, { status: "paused" });
      record(story.id, { status: "paused", reason: walk.pauseReason, agentCalls: outcome.agentCalls });
      return;
    }
    if (answer === "skip") {
      const reason = `${merged.reason}; interaction merge-conflict: skip${where}`;
      run.stories.update(story.id, { status: "skipped", failureReason: reason });
      run.bus.emit("story:skip", { story: summarize(story), reason });
      record(story.id, { status: "skipped", reason, agentCalls: outcome.agentCalls });
      return;
    }
    if (!rerun.has(story.id) && !stopping()) {
      rerun.add(story.id);
      run.logger.info(
        { storyId: story.id, reason: merged.reason },
        "merge failed; the story runs again on the new tip",
      );
      run.stories.update(story.id, { status: "pending" });
      return carry(story);
    }
    const reason = `${merged.reason}${where}`;
    run.stories.update(story.id, { status: "failed", failureReason: reason });
    run.bus.emit("story:fail", { story: summarize(story), reason });
    record(story.id, { status: "failed", reason, agentCalls: outcome.agentCalls });
  };

  // Ends: every turn starts a story, or waits for one in flight to settle; each story starts once.
  for (;;) {
    if (!stopping()) {
      for (const story of selected) {
        if (started.has(story.id)) continue;
        if (!story.dependencies.every((d) => !ids.has(d) || settled.has(d))) continue;
        started.add(story.id);
        // A fault (git failing) stops new starts; the stories in flight still settle before it is thrown.
        const done = carry(story)
          .catch((error: unknown) => {
            errors.push(error);
          })
          .finally(() => {
            settled.add(story.id);
            inFlight.delete(story.id);
          });
        inFlight.set(story.id, done);
      }
    }
    if (inFlight.size === 0) break;
    await Promise.race(inFlight.values());
  }
  if (errors.length > 0) throw errors[0];
  return passed;
}

/** A worktree whose branch ends in the story's own commit: its work was done and judged there. */
async function finishedEarlier(
  home: WorktreeHome,
  leftover: StoryWorktree & { head: string },
  story: Story,
): Promise<boolean> {
  if (leftover.head === leftover.base) return false;
  return (await commitSubjectOf(home.top, leftover.head)) === commitSubject(story.id, story.title);
}
