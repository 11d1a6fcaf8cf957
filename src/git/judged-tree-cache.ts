import type { Judged } from "../model/ledger.js";
import type { Activity } from "../process/activity.js";
import { GitObjects } from "./git-objects.js";
import type { JudgeOptions } from "./git-repo.js";
import { type IndexedPaths, indexedIn } from "./ignored-from-index.js";
import { judgeTree, type TreeScope, UNBORN, unchangedSinceJudge } from "./judge.js";
import type { SameContents } from "./same-contents.js";
import { type StatBaseline, smallIndex, statBaseline, unchangedByStat } from "./stat-check.js";

/** The last tree judged and what had run by then (activity.ts): judged again only when it may be stale. */
export interface LastJudged {
  sha: string;
  tree: string;
  started: number;
  writers: number;
  baseline?: StatBaseline;
  /** Nothing that could reach this tree ran while it was judged or last checked. */
  settled: boolean;
}

export interface JudgeCacheInput {
  top: string;
  prefix: string;
  /** The user's index: its size stands for the private index's before the first judge. */
  userIndex: string;
  hashBytes: number;
  head(): Promise<string>;
  scope(): Promise<TreeScope>;
  /** What ran that could reach this tree. */
  ranHere(): Activity;
  /** Untracked ignored paths as last listed: the stat baseline does not walk wholly ignored folders. */
  ignoredPaths(): ReadonlySet<string> | undefined;
  /** Where a judge's own diff-tree against HEAD is told. */
  sameContents: SameContents;
}

/**
 * The judge with its memory (repo.ts `judge()`): the tree is built after anything that may have written it,
 * a stat pass against the judged index says whether read-only commands changed it, and nothing is looked at
 * when nothing ran since. `recheck` always looks (completion, merge-back); `deferStatCheck` takes the judged
 * tree after read-only commands without looking (review: docs/security.md, "One stat pass a story").
 */
export class JudgedTreeCache {
  last: LastJudged | undefined;
  /** The scope whose private index a judge of this run has written (every path in it is in a judged tree). */
  judgedIn: TreeScope | undefined;
  /** The tree the last judge gave: the private index's paths, as long as judgedIn holds. */
  lastTree: string | undefined;
  /** The stat pass in node (stat-check.ts) when it can answer "unchanged" alone, else git's status. */
  private lastBaseline: StatBaseline | undefined;

  constructor(private readonly input: JudgeCacheInput) {}

  async judge(options: JudgeOptions = {}): Promise<Judged> {
    const judged = await this.judgeNow(options);
    this.lastTree = judged.tree;
    return judged;
  }

  /**
   * The private index's paths in some folders once a judge of this run wrote it, from the tree it wrote:
   * they answer for a changed folder with nothing new outside them, no git (ignored-from-index.ts).
   * `current`: the private index's scope now (undefined once the repository is closed).
   */
  indexedPaths(folders: readonly string[], current: TreeScope | undefined): IndexedPaths | undefined {
    const { judgedIn, lastTree } = this;
    const objects =
      judgedIn !== undefined && judgedIn === current ? judgedIn.git.env.GIT_OBJECT_DIRECTORY : undefined;
    if (!objects || lastTree?.length !== 40) return undefined;
    return indexedIn(new GitObjects(objects), lastTree, folders);
  }

  /**
   * At a commit of `judged`: the last judged tree, when it is that one, taken out (the commit rewrites the
   * private index); given back with `carried` once the commit holds it.
   */
  takeLast(judged: Judged): LastJudged | undefined {
    const last = this.last;
    this.last = undefined;
    return last?.tree === judged.tree && last.sha === judged.sha ? last : undefined;
  }

  /** The working tree is what was judged, now on top of `commit`: no need to judge it again. */
  carried(last: LastJudged, commit: string): void {
    this.last = { ...last, sha: commit };
  }

  private async judgeNow(options: JudgeOptions): Promise<Judged> {
    const { input } = this;
    const sha = await input.head();
    const s = await input.scope();
    // Only a status of this judge vouches for the folders (untracked-cache.ts checkedFolders): one of an
    // earlier judge says nothing of what changed since.
    s.statusStarted = undefined;
    const now = input.ranHere();
    const last = this.last;
    if (last && last.sha === sha && now.writers === last.writers && now.runningWriters === 0) {
      // Nothing ran since: the tree is the one judged.
      if (last.settled && now.running === 0 && now.started === last.started && !options.recheck)
        return { sha, tree: last.tree };
      // Only commands started as read-only ran since: a verdict about to be bound to this tree is checked
      // against the disk by completion's recheck anyway (a file they changed is still changed then).
      if (options.deferStatCheck && !options.recheck) return { sha, tree: last.tree };
      // Only commands that do not change files ran since, or run still (another worker's tests): a stat
      // pass against the judged index says whether they did anyway. While one runs, the next judge looks again.
      if (await this.unchanged(s, last.baseline)) {
        if (now.running === 0) Object.assign(last, { started: now.started, settled: true });
        return { sha, tree: last.tree };
      }
    }
    this.last = undefined;
    // No walk where the check will not pay (a large tree): git's status answers there.
    const baseline = smallIndex(s.git.dir, input.userIndex)
      ? statBaseline(input.top, input.prefix, input.ignoredPaths(), this.lastBaseline)
      : undefined;
    this.lastBaseline = baseline;
    const tree = await judgeTree(s, sha);
    this.judgedIn = s;
    if (s.sameAsHead && sha !== UNBORN)
      input.sameContents.remember(s.sameAsHead.head, s.sameAsHead.tree, s.sameAsHead.same);
    // No command that may change files runs: what does not may still (another worker's tests), which the
    // next judge's stat pass checks.
    if (now.runningWriters === 0)
      this.last = {
        sha,
        tree,
        started: now.started,
        writers: now.writers,
        baseline,
        settled: now.running === 0,
      };
    return { sha, tree };
  }

  private async unchanged(s: TreeScope, baseline?: StatBaseline): Promise<boolean> {
    const { top, hashBytes } = this.input;
    return (
      (baseline !== undefined &&
        s.index.head !== undefined &&
        unchangedByStat({ top, privateDir: s.git.dir, hashBytes, baseline })) ||
      unchangedSinceJudge(s)
    );
  }
}
