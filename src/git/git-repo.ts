import type { Judged } from "../model/ledger.js";
import type { JudgedChange } from "./judged-changes.js";
import type { GitChange, GitSnapshot } from "./tamper-snapshot.js";

/** What gantry asks of git, each answered with as few git calls as it can (repo.ts). */
/** What a commit waits for. */
export interface CommitOptions {
  /** Settles once what must be durable before the branch moves is (prd.json's folder synced): awaited first. */
  ready?: Promise<unknown>;
}

/** Where a repository is, as `git rev-parse` says it (real, absolute paths). */
export interface RepoLocations {
  /** The project root's path from the top level ("" or "packages/x/"). */
  prefix: string;
  gitDir: string;
  commonDir: string;
  top: string;
  objectFormat: string;
}

export interface GitRepo {
  readonly root: string;
  /** Where it is (rev-parse's answer once): what another openRepo of the same root in this run may reuse. */
  readonly locations: RepoLocations;
  /** The working tree's top level (root, or a folder above it when gantry runs in a subfolder). */
  readonly top: string;
  head(): Promise<string>;
  /**
   * HEAD and the tree hash of the working tree (tracked + untracked, not ignored, without .gantry/), built
   * hermetically (see hermetic.ts); throws JudgeRefusal for content a commit would not carry.
   */
  judge(options?: JudgeOptions): Promise<Judged>;
  /**
   * Commits exactly the judged tree (plus gantry's config and prd.json) with commit-tree and a
   * compare-and-swap of the branch; throws CommitMismatch when HEAD is not that commit afterwards.
   */
  commitJudged(judged: Judged, subject: string, options?: CommitOptions): Promise<string>;
  /**
   * Makes the next commit ahead, in memory and as loose objects, for the tree the last judge left (while
   * completion's recheck runs): `contents`, the prd.json files the story store is about to write, by absolute
   * path. Nothing is published; commitJudged uses it only when it is exactly the commit to make then.
   */
  prepareCommit?(subject: string, contents: ReadonlyMap<string, Buffer>): void;
  /** Whether a commit made ahead pays here (a large user's index); where not, completion makes none. */
  commitAheadPays?(): boolean;
  /**
   * Files that differ between a commit and a judged tree (.gantry/ aside), relative to the project root,
   * deleted ones included, sorted: `git diff-tree`, whose cost grows with the change, not the repository.
   */
  changedFiles(base: string, tree: string): Promise<string[]>;
  /**
   * The same files with their status, from the last judge's own diff-tree when it compared exactly `base`
   * (a commit) with `tree`; undefined otherwise (ask git). No renames: it compares without detecting them.
   */
  judgedChanges?(base: string, tree: string): JudgedChange[] | undefined;
  /** Every file of a tree, relative to the project root (`git ls-tree -r`), kept per tree. */
  treeFiles(tree: string): Promise<string[]>;
  /** Whether a commit holds exactly a judged tree's content (.gantry/ aside). */
  sameContent(commit: string, tree: string): Promise<boolean>;
  /** What git's own state is now: the git directory's config, hooks and info files, refs, HEAD, index flags. */
  snapshot(): Promise<GitSnapshot>;
  /** What changed since `before`, each change put back where that is safe (tamper-snapshot.ts). */
  restoreSince(before: GitSnapshot): Promise<GitChange[]>;
  /** Untracked ignored paths (.gantry/ aside), a wholly ignored folder as one `dir/` entry. */
  ignoredPaths(): Promise<Set<string>>;
  /** Source files among ignored paths that are new since `before`, relative to the repository's top. */
  newIgnoredSources(before: Set<string>): Promise<string[]>;
  /** Removes the private git directory the judge works in. */
  close(): void;
  /**
   * Files the user's index tracks under the project root, relative to it (what `git ls-files` lists). The
   * set may be the reader's own, changed by the next commit or read: copy it to keep it past those.
   */
  trackedFiles(): Promise<ReadonlySet<string>>;
  /** HEAD and its tree (zeros when unborn): for a verdict about a story's text rather than a working tree. */
  headAndTree(): Promise<{ sha: string; tree: string }>;
  headSubject(): Promise<string>;
  /** Files a commit changed, relative to the project root. */
  commitFiles(sha: string): Promise<string[]>;
  /** Files changed in the working tree (relative to the project root), .gantry/ excluded. */
  dirtyFiles(): Promise<string[]>;
  /**
   * The run's start check: what dirtyFiles lists, answered by the run's first judge when it finds the working
   * tree and the user's index both HEAD's (no status pass then); the judged tree is kept for the first session.
   */
  uncommittedAtStart(): Promise<string[]>;
  /** Saves uncommitted work (tracked and untracked, .gantry/ excluded) to the stash; returns its ref or undefined. */
  setAside(message: string): Promise<string | undefined>;
  /** Why `git commit` would refuse here (no user.name / user.email), in one line; undefined when it can commit. */
  commitIdentityProblem(): Promise<string | undefined>;
  /** The checked-out branch; undefined on a detached HEAD. */
  branch(): Promise<string | undefined>;
}

export interface JudgeOptions {
  /**
   * Look at the disk even when no command ran since the last judge (a stat pass at least): for the last
   * guard before a commit, which must see an edit made by anything, a process gantry did not start included.
   */
  recheck?: boolean;
  /**
   * After commands started as read-only (tests, lint, typecheck), take the judged tree without a stat pass:
   * for a verdict that completion's recheck holds to the disk anyway (a file they changed is still changed
   * then, and the tree it judges has no verdict). Ignored with `recheck`; a writer since always rebuilds.
   */
  deferStatCheck?: boolean;
}
