import type { Config } from "../config/schema.js";
import { EXIT } from "../model/exit-codes.js";
import { countEnds, type RunSummary } from "../model/run.js";
import type { PluginSet } from "../plugins/types.js";
import { loadPrd } from "../prd/load.js";
import { selectStories } from "../prd/select.js";
import { summarize } from "../prd/story.js";
import { processAlive } from "../process/process-group.js";
import { createReporters, type ResolvedReporter } from "../reporters/loader.js";
import type { CostTotals, RunContext } from "../stages/context.js";
import { costCapReached } from "../stages/cost-cap.js";
import { acceptance } from "../stages/post-run/acceptance.js";
import {
  deferredRegression,
  type PassedStory,
  type PostRunResult,
} from "../stages/post-run/deferred-regression.js";
import { totalCostBasis } from "../subscribers/cost-log.js";
import { wireSubscribers } from "../subscribers/index.js";
import { removeLeftoverTemps } from "../util/atomic-write.js";
import { acquireLock } from "./lock.js";
import { readyMainTree, workerCount } from "./parallel/main-tree.js";
import { walkInParallel } from "./parallel/walk.js";
import { resumeNote } from "./resume.js";
import { errorCodeOf } from "./run-error.js";
import { createRunContext } from "./run-setup.js";
import { checkStart, type StartOptions } from "./run-start.js";
import { walkShards } from "./shards/merge-walk.js";
import type { ShardTip } from "./shards/shard-tips.js";
import { executeStory, type StoryOutcome } from "./story-executor.js";

export interface RunOptions extends StartOptions {
  config: Config;
  only: string[];
  signal: AbortSignal;
  /** Reporters resolved before the run (modules imported, default exports checked). */
  reporters: ResolvedReporter[];
  /** Plugins the pre-flight loaded; loaded here when absent. */
  plugins?: PluginSet;
  /** Told the run's id and directory as soon as they exist, so they can be shown however the run ends. */
  onStart?: (run: { runId: string; runDir: string }) => void;
  /** Told the summary `run:complete` carries. */
  onSummary?: (summary: RunSummary) => void;
  /** `--parallel N`: stories at once, each in its own worktree; undefined = `execution.parallel`. */
  parallel?: number;
  /** `gantry merge-shards`: the shard branches merged in, instead of stories run. */
  shards?: ShardTip[];
}

interface Walk {
  exitCode?: number;
  outcomes: (StoryOutcome & { storyId: string })[];
  pauseReason?: string;
  postRunFailures: PostRunResult[];
}

/** The run lifecycle: lock, settle the last run, wire subscribers, walk the stories, post-run checks, summary. */
export async function runFeature(options: RunOptions): Promise<number> {
  const release = acquireLock(options.root);
  try {
    // A run killed while writing prd.json leaves its temp file beside it: the tree would not be clean.
    removeLeftoverTemps(options.prdPath, processAlive);
    const { previous, worktrees, git } = await checkStart(options);
    const prd = loadPrd(options.prdPath);
    // The repository the start check judged: its judged tree is the first session's starting point.
    const { run, close } = await createRunContext({ ...options, prd, git });
    options.onStart?.({ runId: run.runId, runDir: run.runDir });
    const reporters = await createReporters(options.reporters, {
      root: run.root,
      runDir: run.runDir,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    const unwire = wireSubscribers(run.bus, { ...run, warn: options.warn, reporters });
    const resuming = resumeNote(previous, prd);
    if (resuming) {
      options.warn(`gantry: ${resuming}`);
      run.bus.emit("run:resume", { reason: resuming });
    }
    const started = performance.now();
    const walk: Walk = { outcomes: [], postRunFailures: [] };
    try {
      await walkStories(run, options, walk, worktrees);
    } catch (error) {
      run.bus.emit("run:error", {
        error: { message: error instanceof Error ? error.message : String(error), code: errorCodeOf(error) },
      });
      run.state.update({ status: "error" });
      throw error;
    } finally {
      const exitCode = finish(run, options, walk, performance.now() - started);
      const stuck = await run.bus.flush();
      if (stuck.length > 0) options.warn(`gantry: subscribers still busy at exit: ${stuck.join(", ")}`);
      unwire();
      close();
      run.git.close();
      walk.exitCode = exitCode;
    }
    return walk.exitCode ?? EXIT.failed;
  } finally {
    release();
  }
}

async function walkStories(
  run: RunContext,
  options: RunOptions,
  walk: Walk,
  worktrees: number,
): Promise<void> {
  const selected = selectStories(run.stories.prd, options.only);
  run.bus.emit("run:start", { feature: run.feature, totalStories: selected.length });
  // --parallel 1 (the default) with no story worktree left by an earlier run takes the one-by-one walk below.
  const workers = workerCount(options.parallel, run.config);
  const parallel = workers > 1 || worktrees > 0;
  if (parallel || options.shards) await readyMainTree(run, worktrees > 0);
  const passed: PassedStory[] = options.shards
    ? await walkShards(run, options.shards, walk, options.warn)
    : parallel
      ? await walkInParallel(run, selected, workers, walk, options.warn)
      : [];
  for (const story of parallel || options.shards ? [] : selected) {
    // Past the cost cap no story starts (its hooks and status change included); the answer to a
    // cost-exceeded question that raised the cap came in with the last story's flush.
    walk.pauseReason = options.signal.aborted
      ? "interrupted"
      : (run.requests.pauseReason ?? costCapReached(run));
    if (walk.pauseReason) break;
    const outcome = await executeStory(run, story);
    walk.outcomes.push({ ...outcome, storyId: story.id });
    if (outcome.status === "passed") {
      // Which files the commit changed is asked only if the deferred regression fails (one git call saved a story).
      const sha = await run.git.head();
      passed.push({ id: story.id, files: () => run.git.commitFiles(sha) });
    }
    await run.bus.flush();
    if (outcome.status === "paused") {
      walk.pauseReason = outcome.reason ?? "paused";
      break;
    }
  }
  // A pause asked for during the last story (an interaction's `abort`) still ends the run paused.
  if (!options.signal.aborted) walk.pauseReason ??= run.requests.pauseReason;
  if (walk.pauseReason) {
    run.bus.emit("run:pause", { reason: walk.pauseReason });
    return;
  }
  for (const check of [await deferredRegression(run, passed), await acceptance(run, passed.length > 0)]) {
    if (check.ran && !check.success) {
      walk.postRunFailures.push(check);
      options.warn(`gantry: ${check.name} failed: ${check.reason}`);
      for (const id of check.implicated) failAfterWalk(run, walk, id, `${check.name}: ${check.reason}`);
    }
  }
}

/**
 * A passed story a post-run check puts a failure on: its commit stands (nothing is lost), but the story is
 * not done. Announced with `story:fail` like any other failure, so reports and the on-story-fail hook show it.
 */
function failAfterWalk(run: RunContext, walk: Walk, id: string, reason: string): void {
  run.stories.update(id, { status: "failed", failureReason: reason });
  const story = run.stories.get(id);
  if (story) run.bus.emit("story:fail", { story: summarize(story), reason });
  const outcome = walk.outcomes.find((o) => o.storyId === id);
  if (outcome) Object.assign(outcome, { status: "failed", reason });
}

function finish(run: RunContext, options: RunOptions, walk: Walk, durationMs: number): number {
  // An edit made after gantry's last write (a process outliving its session) is undone before the summary.
  run.stories.settle();
  const summary = summarizeRun(walk.outcomes, run.cost, durationMs);
  const exitCode = options.signal.aborted
    ? EXIT.interrupted
    : walk.pauseReason
      ? EXIT.paused
      : // A skipped story (a veto, an interaction answer) is not a story done: only all passed is exit 0.
        summary.failed + summary.blocked + summary.skipped + walk.postRunFailures.length > 0
        ? EXIT.failed
        : EXIT.ok;
  if (run.state.data.status === "running") {
    const status =
      exitCode === EXIT.interrupted ? "interrupted" : exitCode === EXIT.paused ? "paused" : "complete";
    run.state.update({ status, currentStory: undefined });
  }
  run.bus.emit("run:complete", { summary, exitCode });
  options.onSummary?.(summary);
  return exitCode;
}

function summarizeRun(outcomes: StoryOutcome[], cost: CostTotals, durationMs: number): RunSummary {
  return {
    ...countEnds(outcomes.map((o) => o.status)),
    durationMs: Math.round(durationMs),
    costUsd: cost.usd,
    costBasis: cost.sessions === 0 ? "exact" : totalCostBasis(cost.byBasis),
  };
}
