import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { runGit } from "./exec.js";

/** A git worktree as `git worktree list --porcelain` names it. */
export interface WorktreeEntry {
  path: string;
  head: string;
  /** `refs/heads/...`, absent on a detached HEAD. */
  branch?: string;
}

/** Every worktree of the repository `cwd` belongs to, the main one first. */
export async function listWorktrees(cwd: string): Promise<WorktreeEntry[]> {
  const out = await runGit(cwd, ["worktree", "list", "--porcelain", "-z"]);
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

/**
 * Checks out an existing branch in a new worktree at `path`, hooks off. Dependencies the project keeps out
 * of git (`node_modules`) are linked from `linkFrom`, so its test commands work there as they do at home.
 * It moves no ref other worktrees share (the new worktree's HEAD is its own): other worktrees' sessions
 * may compare refs meanwhile.
 */
export async function addWorktree(
  cwd: string,
  path: string,
  branch: string,
  linkFrom?: string,
): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await runGit(cwd, ["-c", "core.hooksPath=/dev/null", "worktree", "add", "-q", path, branch]);
  if (linkFrom) await linkDependencies(linkFrom, path);
}

/** Removes a worktree gantry made (its leftover files with it) and forgets it; the branch is not touched. */
export async function removeWorktree(cwd: string, path: string): Promise<void> {
  const removed = await runGit(cwd, ["worktree", "remove", "--force", "--force", path]).then(
    () => true,
    () => false,
  );
  // A removal that went through took git's record of the worktree with it: only a failed one leaves one.
  if (!removed) await runGit(cwd, ["worktree", "prune"]).catch(() => undefined);
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
export async function refTip(cwd: string, ref: string, _commonDir?: string): Promise<string | undefined> {
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

const DEPENDENCY_DIRS = ["node_modules"];

/** Only an ignored folder is linked: a link git would see is content the judge would refuse. */
async function linkDependencies(from: string, to: string): Promise<void> {
  for (const dir of DEPENDENCY_DIRS) {
    const source = join(from, dir);
    const target = join(to, dir);
    if (!existsSync(source) || existsSync(target)) continue;
    const ignored = await runGit(to, ["check-ignore", "-q", dir]).then(
      () => true,
      () => false,
    );
    if (ignored) symlinkSync(source, target, "dir");
  }
}
