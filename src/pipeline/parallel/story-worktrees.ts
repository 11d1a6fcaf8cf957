import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { runGit } from "../../git/exec.js";
import type { RefBook } from "../../git/ref-book.js";
import type { RepoLocations } from "../../git/repo.js";
import {
  addWorktree,
  isAncestor,
  listWorktrees,
  pruneWorktrees,
  refTip,
  removeWorktree,
  swapRef,
} from "../../git/worktree.js";

/** Where a repository's story worktrees and branches are, and the one rule for naming them. */
export interface WorktreeHome {
  /** The main worktree's top level. */
  top: string;
  /** gantry's project folder relative to the top ("" or "packages/x/"). */
  prefix: string;
  /** git's common directory: story worktrees live under it, out of every tree a test runner walks. */
  commonDir: string;
  feature: string;
  /** The repository's object format (`sha1`, `sha256`), the same in every worktree. */
  objectFormat?: string;
}

export interface StoryWorktree {
  storyId: string;
  /** The worktree's top level. */
  path: string;
  /** `refs/heads/gantry/<feature>/story-<id>`. */
  branch: string;
  /** The commit it was made from. */
  base: string;
}

export async function worktreeHome(
  root: string,
  feature: string,
  known?: RepoLocations,
): Promise<WorktreeHome> {
  if (known)
    return {
      top: known.top,
      prefix: known.prefix,
      commonDir: known.commonDir,
      feature,
      objectFormat: known.objectFormat,
    };
  const [prefix = "", commonRaw = ".git", top = root, objectFormat = "sha1"] = (
    await runGit(root, [
      "rev-parse",
      "--show-prefix",
      "--git-common-dir",
      "--show-toplevel",
      "--show-object-format",
    ])
  )
    .replace(/\n$/, "")
    .split("\n");
  const commonDir = isAbsolute(commonRaw) ? commonRaw : join(root, commonRaw);
  return { top, prefix, commonDir, feature, objectFormat };
}

/**
 * Where a story's worktree is, as `git rev-parse` in it would say, from what is known already: its top
 * level, the home's prefix, common directory and object format, and its git directory from its `.git`
 * file (`gitdir: <path>`, as git itself reads it). Undefined when any of it does not read as expected:
 * the caller asks git then.
 */
export function worktreeLocations(home: WorktreeHome, worktree: StoryWorktree): RepoLocations | undefined {
  if (home.objectFormat === undefined) return undefined;
  try {
    const dotGit = join(worktree.path, ".git");
    const line = /^gitdir: (.+?)\r?\n?$/.exec(readFileSync(dotGit, "utf8"));
    if (!line?.[1]) return undefined;
    const gitDir = realpathSync(resolve(worktree.path, line[1]));
    const commonDir = realpathSync(home.commonDir);
    // A linked worktree's git directory is one of the common directory's worktree records.
    if (dirname(gitDir) !== join(commonDir, "worktrees")) return undefined;
    return {
      prefix: home.prefix,
      gitDir,
      commonDir,
      top: realpathSync(worktree.path),
      objectFormat: home.objectFormat,
    };
  } catch {
    return undefined;
  }
}

/** A name safe in a ref and a path: anything but letters, digits, `.`, `_` and `-` becomes `-`. */
export function refSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "-").replace(/^\.+/, "-");
}

export const storyBranchPrefix = (feature: string) => `refs/heads/gantry/${refSafe(feature)}/story-`;
export const storyBranch = (feature: string, storyId: string) =>
  `${storyBranchPrefix(feature)}${refSafe(storyId)}`;
/** Where a story's work is kept when it is not merged: nothing a story did is lost with its worktree. */
export const failedRef = (storyId: string) => `refs/gantry/failed/${refSafe(storyId)}`;
/** Where an earlier set-aside of the story goes when a later one takes `failedRef`: the n-th, from 1. */
export const earlierFailedRef = (storyId: string, n: number) =>
  `refs/gantry/earlier/${refSafe(storyId)}/${n}`;

/** The folder this feature's story worktrees are made in. */
export function worktreesDir(home: WorktreeHome): string {
  return join(home.commonDir, "gantry", "worktrees", refSafe(home.feature));
}

export function worktreePath(home: WorktreeHome, storyId: string): string {
  return join(worktreesDir(home), refSafe(storyId));
}

/** The story worktrees of this feature that exist now (a crashed run's included), by story id. */
export async function storyWorktrees(
  home: WorktreeHome,
  storyIds: string[],
): Promise<Map<string, StoryWorktree & { head: string }>> {
  const prefix = storyBranchPrefix(home.feature);
  const byBranch = new Map(storyIds.map((id) => [storyBranch(home.feature, id), id]));
  const found = new Map<string, StoryWorktree & { head: string }>();
  for (const entry of await listWorktrees(home.top, home.commonDir)) {
    const id = entry.branch?.startsWith(prefix) ? byBranch.get(entry.branch) : undefined;
    if (id === undefined || !existsSync(entry.path)) continue;
    const base = (await runGit(home.top, ["merge-base", "HEAD", entry.head]).catch(() => entry.head)).trim();
    found.set(id, { storyId: id, path: entry.path, branch: entry.branch as string, base, head: entry.head });
  }
  return found;
}

/**
 * A worktree for the story on its own branch made from `tip` (the feature branch now). A branch left by
 * an earlier run without its worktree is checked out again, so its commits go on being worked on.
 */
export async function openStoryWorktree(
  home: WorktreeHome,
  book: RefBook,
  storyId: string,
  tip: string,
): Promise<StoryWorktree> {
  const path = worktreePath(home, storyId);
  const branch = storyBranch(home.feature, storyId);
  // Under the book only what other sessions' tamper checks see: git's worktree records tidied, and the
  // story's branch made (a ref they must know as gantry's). The checkout (`worktree add`, every file of the
  // tree written) moves no shared ref, so the merge commit and other workers' commits need not wait for it.
  const existing = await book.exclusive(async () => {
    // git's worktree records are read only when something may be left over: the folder, or a record of
    // a worktree whose folder is gone (a removal cut short); else they hold nothing to tidy.
    if (existsSync(path) || !everyWorktreeThere(home.commonDir)) {
      await pruneWorktrees(home.top, home.commonDir).catch(() => undefined);
      // A folder git no longer knows as a worktree is what a removal cut short left: its work is in the branch.
      const known = (await listWorktrees(home.top, home.commonDir)).some((w) => w.path === path);
      if (!known && existsSync(path)) rmSync(path, { recursive: true, force: true });
    }
    const existing = await refTip(home.top, branch);
    if (existing) return existing;
    await swapRef(home.top, branch, tip, undefined, `gantry: story ${storyId} branched`);
    book.record(branch, tip);
    return undefined;
  });
  const name = branch.slice("refs/heads/".length);
  const add = { cwd: home.top, commonDir: home.commonDir, path, ref: name };
  if (existing) {
    await addWorktree(add);
    const base = (await runGit(home.top, ["merge-base", tip, existing])).trim();
    return { storyId, path, branch, base };
  }
  await addWorktree({ ...add, linkFrom: home.top });
  return { storyId, path, branch, base: tip };
}

/**
 * Whether every linked worktree git has a record of (`<common dir>/worktrees/<id>/gitdir`, the path of
 * its `.git` file) is still there; false when a record does not read as one.
 */
function everyWorktreeThere(commonDir: string): boolean {
  let ids: string[];
  try {
    ids = readdirSync(join(commonDir, "worktrees"));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
  for (const id of ids) {
    try {
      const gitFile = readFileSync(join(commonDir, "worktrees", id, "gitdir"), "utf8").trim();
      if (!isAbsolute(gitFile) || !existsSync(gitFile)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Removes a story's worktree and branch once nothing in them can be lost: the branch's commits are
 * reachable from the feature branch (`merged`), or, when not, first kept under `refs/gantry/failed/<id>`.
 * Returns the ref the work was kept in, if one was needed.
 */
export async function retireStoryWorktree(
  home: WorktreeHome,
  book: RefBook,
  worktree: StoryWorktree,
  merged: boolean,
): Promise<string | undefined> {
  const { tip, kept } = await book.exclusive(async () => {
    const tip = await refTip(home.top, worktree.branch);
    let kept: string | undefined;
    if (tip && !merged && tip !== worktree.base) {
      kept = failedRef(worktree.storyId);
      const previous = await refTip(home.top, kept);
      // A story set aside before (a merge that failed, then its rerun failing too) keeps that work as well.
      if (previous && previous !== tip && !(await isAncestor(home.top, previous, tip)))
        await keepEarlier(home, book, worktree.storyId, previous);
      await swapRef(home.top, kept, tip, previous, `gantry: ${worktree.storyId} set aside`);
      book.record(kept, tip);
    }
    return { tip, kept };
  });
  // Removing the worktree (its files, git's record of it) moves no shared ref: outside the book.
  await removeWorktree(home.top, home.commonDir, worktree.path);
  if (tip)
    await book.exclusive(async () => {
      await swapRef(home.top, worktree.branch, undefined, tip, "gantry: story worktree retired");
      book.record(worktree.branch, undefined);
    });
  return kept;
}

/** Keeps an earlier set-aside of the story under the first free `refs/gantry/earlier/<id>/<n>`. */
async function keepEarlier(
  home: WorktreeHome,
  book: RefBook,
  storyId: string,
  commit: string,
): Promise<void> {
  for (let n = 1; ; n++) {
    const ref = earlierFailedRef(storyId, n);
    const there = await refTip(home.top, ref);
    if (there === commit) return;
    if (there !== undefined) continue;
    await swapRef(home.top, ref, commit, undefined, `gantry: ${storyId} set aside earlier`);
    book.record(ref, commit);
    return;
  }
}
