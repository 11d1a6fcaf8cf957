import { existsSync, mkdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { SimpleGit } from "simple-git";
import { mirrorNodeModules } from "../process/dependency-mirror.js";
import { GIT, runGit } from "./exec.js";
import { GitError } from "./git-error.js";
import { isIgnored } from "./ignored.js";

/** A git worktree as `git worktree list --porcelain` names it. */
export interface WorktreeEntry {
  path: string;
  head: string;
  /** `refs/heads/...`, absent on a detached HEAD. */
  branch?: string;
}

/**
 * git's records of a repository's worktrees (`<common dir>/worktrees/<name>/`) are shared by every worktree,
 * and git does not lock them: a `worktree prune` or `remove` while another `worktree add` is between making
 * its record's folder and writing its files removes the half-made record ("failed to read …/commondir"), and a
 * `worktree list` then can read a record half written. So every command of gantry's that reads or writes
 * them waits its turn here, one repository (by its common directory) at a time; the files of a new worktree
 * are written after, in it alone.
 */
const recordTurns = new Map<string, Promise<unknown>>();

function inTurn<T>(commonDir: string, work: () => Promise<T>): Promise<T> {
  const key = realOrSame(commonDir);
  const before = recordTurns.get(key) ?? Promise.resolve();
  const mine = before.then(work, work);
  const settled = mine.catch(() => undefined);
  recordTurns.set(key, settled);
  settled.then(() => {
    if (recordTurns.get(key) === settled) recordTurns.delete(key);
  });
  return mine;
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** simple-git for the repository at `cwd`, loaded on first use: hooks and fsmonitor off, paths unquoted. */
async function coldGit(cwd: string): Promise<SimpleGit> {
  const { simpleGit } = await import("simple-git");
  return simpleGit({
    baseDir: cwd,
    // The git gantry resolved from the system's folders: simple-git would search PATH, whose first entries
    // may be the home's (a planted `~/.cargo/bin/git`).
    binary: GIT,
    config: ["core.hooksPath=/dev/null", "core.fsmonitor=false", "core.quotepath=off"],
    // These two settings turn programs off; simple-git refuses any value of them unless told.
    unsafe: { allowUnsafeHooksPath: true, allowUnsafeFsMonitor: true },
  });
}

/** A simple-git failure as gantry's other git failures read: the command, where, and git's stderr. */
async function cold<T>(cwd: string, what: string, work: (git: SimpleGit) => Promise<T>): Promise<T> {
  try {
    return await work(await coldGit(cwd));
  } catch (error) {
    const stderr = (error as Error).message.trim();
    throw new GitError(`git ${what} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, {
      cause: error,
      stderr,
    });
  }
}

/** The common directory of the repository `cwd` belongs to, absolute. */
export async function commonDirOf(cwd: string): Promise<string> {
  return (await runGit(cwd, ["rev-parse", "--path-format=absolute", "--git-common-dir"])).trim();
}

/** Every worktree of the repository `cwd` belongs to, the main one first. */
export async function listWorktrees(cwd: string, commonDir?: string): Promise<WorktreeEntry[]> {
  const out = await inTurn(commonDir ?? (await commonDirOf(cwd)), () =>
    cold(cwd, "worktree list", (git) => git.raw(["worktree", "list", "--porcelain", "-z"])),
  );
  const entries: WorktreeEntry[] = [];
  let current: WorktreeEntry | undefined;
  for (const field of out.split("\0")) {
    if (field.startsWith("worktree ")) {
      current = { path: field.slice("worktree ".length), head: "" };
      entries.push(current);
    } else if (current && field.startsWith("HEAD ")) current.head = field.slice(5);
    else if (current && field.startsWith("branch ")) current.branch = field.slice(7);
  }
  return entries;
}

export interface AddWorktree {
  /** Any worktree of the repository (where git runs). */
  cwd: string;
  commonDir: string;
  /** The new worktree's folder: absent or empty. Its last part names git's record of it, so make it unique. */
  path: string;
  /** A branch name (checked out) or, with `detach`, a commit. */
  ref: string;
  detach?: boolean;
  /** Where the ignored dependency folders (`node_modules`) are linked from. */
  linkFrom?: string;
}

/**
 * A new worktree at `path`, hooks off. Only git's record of it is made in turn (`worktree add
 * --no-checkout`); its index and files are then written by git in it alone (`reset --hard`), so a large
 * checkout never holds up another worker's worktree. It moves no ref other worktrees share (the new
 * worktree's HEAD is its own): other worktrees' sessions may compare refs meanwhile.
 */
export async function addWorktree(options: AddWorktree): Promise<void> {
  const { cwd, path, ref } = options;
  mkdirSync(dirname(path), { recursive: true });
  const args = ["worktree", "add", "--no-checkout", "-q", ...(options.detach ? ["--detach"] : []), path, ref];
  await inTurn(options.commonDir, () => cold(cwd, "worktree add", (git) => git.raw(args)));
  await runGit(path, ["-c", "core.hooksPath=/dev/null", "reset", "-q", "--hard"]);
  if (options.linkFrom) await linkDependencies(options.linkFrom, path);
}

/** Removes a worktree gantry made (its leftover files with it) and forgets it; the branch is not touched. */
export async function removeWorktree(cwd: string, commonDir: string, path: string): Promise<void> {
  await inTurn(commonDir, async () => {
    const removed = await cold(cwd, "worktree remove", (git) =>
      git.raw(["worktree", "remove", "--force", "--force", path]),
    ).then(
      () => true,
      () => false,
    );
    // A removal that went through took git's record of the worktree with it: only a failed one leaves one.
    if (!removed)
      await cold(cwd, "worktree prune", (git) => git.raw(["worktree", "prune"])).catch(() => undefined);
  });
}

/** Forgets the worktrees whose folders are gone (a removal cut short), in turn with every other record change. */
export async function pruneWorktrees(cwd: string, commonDir: string): Promise<void> {
  await inTurn(commonDir, () => cold(cwd, "worktree prune", (git) => git.raw(["worktree", "prune"])));
}

/** Whether `commit` is reachable from `from`. */
export async function isAncestor(cwd: string, commit: string, from: string): Promise<boolean> {
  try {
    await runGit(cwd, ["merge-base", "--is-ancestor", commit, from]);
    return true;
  } catch {
    return false;
  }
}

/** A ref's commit, or undefined when there is no such ref. */
export async function refTip(cwd: string, ref: string): Promise<string | undefined> {
  try {
    return (await runGit(cwd, ["rev-parse", "--verify", "-q", `${ref}^{commit}`])).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Moves (or creates, or with `to` undefined deletes) a ref only if it still holds `expected` (compare-and-swap). */
export async function swapRef(
  cwd: string,
  ref: string,
  to: string | undefined,
  expected: string | undefined,
  message: string,
): Promise<void> {
  const zero = "0".repeat(40);
  const args =
    to === undefined
      ? ["update-ref", "-d", ref, expected ?? ""]
      : ["update-ref", "-m", message, ref, to, expected ?? zero];
  await runGit(cwd, ["-c", "core.hooksPath=/dev/null", ...args.filter((a) => a !== "")]);
}

/** The subject line of a commit. */
export async function commitSubjectOf(cwd: string, commit: string): Promise<string> {
  return (await runGit(cwd, ["log", "-1", "--format=%s", commit])).trim();
}

/**
 * The main checkout's ignored `node_modules`, mirrored into a new story worktree (a folder of links, see
 * mirrorNodeModules). Only when git ignores the folder: anything else would be content the judge takes.
 */
async function linkDependencies(from: string, to: string): Promise<void> {
  if (!existsSync(join(from, "node_modules"))) return;
  // The trailing slash asks about a folder: `node_modules/`, the usual line, matches folders only.
  if (await isIgnored(to, "node_modules/")) mirrorNodeModules(from, [from], to);
}
