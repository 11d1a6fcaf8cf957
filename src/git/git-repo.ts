import type { Judged } from "../model/ledger.js";
import type { GitChange, GitSnapshot } from "./tamper-snapshot.js";

/** What a commit waits for. */
export interface CommitOptions {
  /** Settles once what must be durable before the branch moves is (prd.json's folder synced): awaited first. */
  ready?: Promise<unknown>;
  /**
   * Runs the branch move (the compare-and-swap update-ref to `commit`); everything before it (the commit
   * object, the worktree's own index) happens outside. A parallel run's ref book serialises just this step.
   */
  moveBranch?: (commit: string, move: () => Promise<void>) => Promise<void>;
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
   * HEAD and the tree of the project's working tree as `git add -A` would stage it with the user's settings,
   * without .gantry/ (judge.ts); throws JudgeRefusal for content a commit would not carry.
   */
  judge(options?: JudgeOptions): Promise<Judged>;
  /**
   * Commits exactly the judged tree (plus gantry's config and prd.json) with commit-tree, the user's index
   * set to it and a compare-and-swap of the branch; throws CommitMismatch when the branch moved, IndexLocked
   * when another git held the index past the wait (nothing changed then).
   */
  commitJudged(judged: Judged, subject: string, options?: CommitOptions): Promise<string>;
  /**
   * Files that differ between a commit and a judged tree (.gantry/ aside), relative to the project root,
   * deleted ones included, sorted: `git diff-tree`, whose cost grows with the change, not the repository.
   */
  changedFiles(base: string, tree: string): Promise<string[]>;
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
  /** Removes the private files the judge works in. */
  close(): void;
  /** Files the user's index tracks under the project root, relative to it (what `git ls-files` lists). */
  trackedFiles(): Promise<ReadonlySet<string>>;
  /** HEAD and its tree (zeros when unborn): for a verdict about a story's text rather than a working tree. */
  headAndTree(): Promise<{ sha: string; tree: string }>;
  headSubject(): Promise<string>;
  /** Files a commit changed, relative to the project root. */
  commitFiles(sha: string): Promise<string[]>;
  /** Files changed in the working tree (relative to the project root), .gantry/ excluded. */
  dirtyFiles(): Promise<string[]>;
  /** The run's start check: what dirtyFiles lists. */
  uncommittedAtStart(): Promise<string[]>;
  /** Saves the project's uncommitted work (tracked and untracked, .gantry/ excluded) as a stash entry and puts HEAD's files back; its commit or undefined. */
  setAside(message: string): Promise<string | undefined>;
  /** Why `git commit` would refuse here (no user.name / user.email), in one line; undefined when it can commit. */
  commitIdentityProblem(): Promise<string | undefined>;
  /** The checked-out branch; undefined on a detached HEAD. */
  branch(): Promise<string | undefined>;
}

export interface JudgeOptions {
  /**
   * Judge the disk again even when no command ran since the last judge: for the last guard before a
   * commit, which must see an edit made by anything, a process gantry did not start included.
   */
  recheck?: boolean;
  /**
   * After commands started as read-only (tests, lint, typecheck), take the last judged tree again: for a
   * verdict that completion's recheck holds to the disk anyway (a file they changed is still changed then,
   * and the tree it judges has no verdict). Ignored with `recheck`; a writer since always rebuilds.
   */
  deferStatCheck?: boolean;
}
