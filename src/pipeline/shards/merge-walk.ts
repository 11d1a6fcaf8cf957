import { relative } from "node:path";
import { runGit } from "../../git/exec.js";
import { RefBook } from "../../git/ref-book.js";
import { isAncestor } from "../../git/worktree.js";
import { parsePrd } from "../../prd/load.js";
import { type Story, summarize } from "../../prd/story.js";
import type { RunContext } from "../../stages/context.js";
import type { PassedStory } from "../../stages/post-run/deferred-regression.js";
import { rescoreReadiness } from "../../stages/readiness-rescore.js";
import { mergeStory } from "../parallel/merge-back.js";
import { openStoryWorktree, retireStoryWorktree, worktreeHome } from "../parallel/story-worktrees.js";
import type { ParallelWalk } from "../parallel/walk.js";
import { workerContext } from "../parallel/worker-context.js";
import type { ShardTip } from "./shard-tips.js";

/**
 * `gantry merge-shards`: each shard branch merged into the feature branch in index order, one at a time,
 * as a story is in `--parallel` (merge-back.ts): the merged tree judged again (the shard's change scoped),
 * committed only when its gates pass, with the shard's stories marked passed and its ledger kept. A shard
 * that conflicts or fails on the merged tree is reported naming the shard and its stories (the ones whose
 * commits touch a conflicting file when git names files), and not merged; the next shards still are.
 */
export async function walkShards(
  run: RunContext,
  shards: ShardTip[],
  walk: ParallelWalk,
  warn: (line: string) => void,
): Promise<PassedStory[]> {
  const home = await worktreeHome(run.root, run.feature, run.git.locations);
  const book = new RefBook();
  const passed: PassedStory[] = [];
  for (const shard of shards) {
    if (run.signal.aborted) {
      walk.pauseReason = "interrupted";
      break;
    }
    const tip = await run.git.head();
    const stories = shard.passed.filter(
      (id) => run.stories.get(id) !== undefined && run.stories.status(id) !== "passed",
    );
    if (await isAncestor(home.top, shard.tip, tip)) continue;
    const id = `shard-${shard.index}`;
    const worktree = await openStoryWorktree(home, book, id, shard.tip);
    worktree.base = (await runGit(home.top, ["merge-base", tip, shard.tip])).trim();
    if (run.mandatoryGates.includes("readiness")) await rescoreShard(run, home.top, id, shard.tip, stories);
    const worker = await workerContext(run, home, book, worktree);
    const merged = await mergeStory(
      run,
      home,
      book,
      { ctx: worker.ctx, worktree },
      shardStory(id, shard, stories),
      {
        subject: `gantry: merge ${shard.branch} (${stories.join(", ") || "no story"})`,
        passes: stories,
        gantryFromMerge: true,
      },
    ).finally(() => worker.close());
    run.bus.emit("story:merge", {
      storyId: id,
      outcome: merged.outcome,
      ...(merged.outcome === "merged" ? { sha: merged.sha, tree: merged.tree } : { reason: merged.reason }),
      ...(merged.outcome === "conflict" ? { files: merged.files } : {}),
    });
    if (merged.outcome === "merged") {
      await retireStoryWorktree(home, book, worktree, true);
      for (const story of stories) {
        passed.push({ id: story, files: merged.files });
        walk.outcomes.push({ storyId: story, status: "passed", agentCalls: 0 });
      }
      continue;
    }
    await retireStoryWorktree(home, book, worktree, false);
    const who =
      merged.outcome === "conflict" ? await storiesTouching(home.top, tip, shard.tip, merged.files) : stories;
    const reason = `shard ${shard.index} (${shard.branch}) did not merge: ${merged.reason}${who.length > 0 ? ` (story ${who.join(", ")})` : ""}`;
    warn(`gantry: ${reason}`);
    for (const storyId of stories) {
      run.stories.update(storyId, { status: "failed", failureReason: reason });
      const story = run.stories.get(storyId);
      if (story) run.bus.emit("story:fail", { story: summarize(story), reason });
      walk.outcomes.push({ storyId, status: "failed", reason, agentCalls: 0 });
    }
  }
  return passed;
}

/**
 * Readiness of the shard's stories scored by this job on the shard's tree (readiness-rescore.ts), with the
 * readiness records (accepted gaps, findings) of the shard's own prd.json, which only gantry writes.
 */
async function rescoreShard(run: RunContext, top: string, id: string, tip: string, ids: string[]) {
  const relPrd = relative(run.root, run.stories.path);
  const theirs = await runGit(top, ["show", `${tip}:${relPrd}`]).then(
    (text) => parsePrd(relPrd, JSON.parse(text)).userStories,
    () => [] as Story[],
  );
  const stories = ids.flatMap((storyId) => {
    const story = theirs.find((s) => s.id === storyId) ?? run.stories.get(storyId);
    return story ? [story] : [];
  });
  const tree = (await runGit(top, ["rev-parse", `${tip}^{tree}`])).trim();
  const files = new Set((await runGit(top, ["ls-tree", "-r", "-z", "--name-only", tip])).split("\0"));
  rescoreReadiness(run, id, stories, files, { sha: tip, tree });
}

/** The shard as the story its merge is judged for: its gates are recorded under `shard-<i>`. */
function shardStory(id: string, shard: ShardTip, stories: string[]): Story {
  return {
    id,
    title: `${shard.branch}: ${stories.join(", ")}`,
    description: `the merge of ${shard.branch}`,
    acceptanceCriteria: [],
    dependencies: [],
    status: "pending",
    passes: false,
  } as unknown as Story;
}

/** The shard's stories whose commits (`gantry(<id>): …`) changed one of `files`. */
async function storiesTouching(top: string, base: string, tip: string, files: string[]): Promise<string[]> {
  const out = await runGit(top, ["log", "--format=%x00%s", "--name-only", `${base}..${tip}`]);
  const found = new Set<string>();
  for (const block of out.split("\0").filter(Boolean)) {
    const [subject = "", ...changed] = block.split("\n").filter(Boolean);
    const id = /^gantry\(([^)]+)\):/.exec(subject)?.[1];
    if (id && changed.some((f) => files.includes(f))) found.add(id);
  }
  return [...found];
}
