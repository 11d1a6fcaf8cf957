import { rmSync } from "node:fs";
import { join } from "node:path";
import { noteCommand } from "../process/activity.js";
import { runGit, runGitSteps } from "./exec.js";
import { GANTRY_DIR } from "./judge.js";

export type MergedTree = { clean: true; tree: string } | { clean: false; tree: string; conflicts: string[] };

/**
 * The three-way merge of two commits as a tree, without touching any index or working tree
 * (`git merge-tree --write-tree`, git 2.38+): the tree when it merges cleanly, else the conflicting paths.
 */
export async function mergeTrees(cwd: string, ours: string, theirs: string): Promise<MergedTree> {
  try {
    const out = await runGit(cwd, [
      "merge-tree",
      "--write-tree",
      "--name-only",
      "--no-messages",
      ours,
      theirs,
    ]);
    return { clean: true, tree: out.split("\n")[0]?.trim() ?? "" };
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown; stdout?: unknown } }).cause;
    if (cause?.code !== 1 || typeof cause.stdout !== "string") throw error;
    const [tree = "", ...paths] = cause.stdout.split("\n").filter(Boolean);
    return { clean: false, tree, conflicts: [...new Set(paths)] };
  }
}

/** Puts a worktree's index and files from commit `from` to tree `to` (both must be what it holds and wants). */
export async function moveWorktree(cwd: string, from: string, to: string): Promise<void> {
  await writingFiles(() =>
    runGit(cwd, ["-c", "core.hooksPath=/dev/null", "read-tree", "-m", "-u", from, to]),
  );
}

/** Back to exactly `commit`: index and tracked files; what the merge added is removed. */
export async function resetWorktree(cwd: string, commit: string): Promise<void> {
  await writingFiles(() => runGit(cwd, ["-c", "core.hooksPath=/dev/null", "reset", "-q", "--hard", commit]));
}

/**
 * A git command that writes a working tree's files counts as a command that may change them (activity.ts):
 * the judge's cache would otherwise take the tree it judged before for the one on disk when nothing else
 * ran in between, and verdicts for one tree would be bound to another.
 */
async function writingFiles<T>(work: () => Promise<T>): Promise<T> {
  const ended = noteCommand(true);
  try {
    return await work();
  } finally {
    ended();
  }
}

export interface MergeCommitPlan {
  /** Where git runs (any worktree of the repository). */
  cwd: string;
  /** The judged tree (without .gantry/), what the commit must carry. */
  tree: string;
  /** The feature branch's tip the merge was judged against: first parent, and the compare-and-swap value. */
  base: string;
  /** The story branch's commit: second parent, so every commit of the story stays reachable. */
  story: string;
  /** The feature branch, `refs/heads/...`. */
  branch: string;
  /** gantry's folder relative to the repository's top (`.gantry` or `pkg/.gantry`). */
  gantryDir: string;
  /** Where gantry's folder is taken from: the branch (`base`, the default) or the merged tree (shards' ledgers). */
  gantryFrom?: string;
  /** prd.json: its path relative to the top, and the file gantry writes it to (read as it is now). */
  prd: { path: string; file: string };
  subject: string;
  /** A private index file for building the commit's tree. */
  indexFile: string;
}

/**
 * Commits a judged merge onto the feature branch: the judged tree, gantry's folder as the branch has it
 * with prd.json as gantry wrote it, two parents, then the branch moved only if it still points at `base`.
 * No hook runs. Returns the new commit.
 */
export async function commitMerge(plan: MergeCommitPlan): Promise<string> {
  const env = { GIT_INDEX_FILE: plan.indexFile };
  const blob = (await runGit(plan.cwd, ["hash-object", "-w", "--no-filters", plan.prd.file])).trim();
  const hasGantry = await runGit(plan.cwd, [
    "rev-parse",
    "--verify",
    "-q",
    `${plan.gantryFrom ?? plan.base}:${plan.gantryDir}`,
  ]).then(
    (out) => out.trim(),
    () => "",
  );
  const tree = (
    await runGitSteps(
      plan.cwd,
      [
        { args: ["read-tree", plan.tree] },
        ...(hasGantry ? [{ args: ["read-tree", `--prefix=${plan.gantryDir}/`, hasGantry] }] : []),
        { args: ["update-index", "--add", "--cacheinfo", `100644,${blob},${plan.prd.path}`] },
        { args: ["write-tree"] },
      ],
      env,
    )
  ).trim();
  const commit = (
    await runGit(plan.cwd, ["commit-tree", tree, "-p", plan.base, "-p", plan.story, "-m", plan.subject])
  ).trim();
  await runGit(plan.cwd, [
    "-c",
    "core.hooksPath=/dev/null",
    "update-ref",
    "-m",
    `gantry: ${plan.subject}`,
    plan.branch,
    commit,
    plan.base,
  ]);
  return commit;
}

/**
 * The main worktree follows its branch after `commitMerge` moved it from `from` to `to`: the index becomes
 * `to`, and the files the merge changed are written (or removed), prd.json aside: that file is the story
 * store's, newer than any commit.
 */
export async function followBranch(top: string, prefix: string, from: string, to: string): Promise<string[]> {
  const out = await runGit(top, [
    "diff-tree",
    "-r",
    "-z",
    "--no-renames",
    "--name-status",
    from,
    to,
    "--",
    ":(top)",
    `:(exclude,top,glob)${prefix}${GANTRY_DIR}/features/*/prd.json`,
  ]);
  const parts = out.split("\0").filter(Boolean);
  const written: string[] = [];
  const removed: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const path = parts[i + 1] as string;
    if (parts[i] === "D") removed.push(path);
    else written.push(path);
  }
  await writingFiles(async () => {
    await runGit(top, ["read-tree", to]);
    for (let i = 0; i < written.length; i += 500)
      await runGit(top, ["checkout-index", "-f", "-q", "--", ...written.slice(i, i + 500)]);
    for (const path of removed) rmSync(join(top, path), { force: true });
  });
  return [...written, ...removed];
}
