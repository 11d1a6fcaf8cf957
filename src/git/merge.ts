import { lstatSync, rmSync } from "node:fs";
import { join } from "node:path";
import { noteCommand } from "../process/activity.js";
import { rememberTreeOfCommit } from "./commit-trees.js";
import { FIRST_STEP_EXIT, runGit, runGitScript } from "./exec.js";
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

/**
 * Puts a worktree's index and files from commit `from` to tree `to` (both must be what it holds and wants).
 * git's two-tree merge takes an entry whose stat data does not match its file for a changed file ("not
 * uptodate. Cannot merge"), and the index a commit leaves may hold entries without stat data (written from
 * the commit's tree, not from the disk): git refreshes them first, comparing contents, in this worktree's
 * index alone. A file that really differs still stops the move, as it must.
 */
export async function moveWorktree(cwd: string, from: string, to: string): Promise<void> {
  await writingFiles(cwd, async () => {
    // Exit 1 is "needs update" for a file that really differs: the read-tree below names it.
    await runGit(cwd, ["update-index", "-q", "--refresh"]).catch(() => undefined);
    await runGit(cwd, ["-c", "core.hooksPath=/dev/null", "read-tree", "-m", "-u", from, to]);
  });
}

/** Back to exactly `commit`: index and tracked files; what the merge added is removed. */
export async function resetWorktree(cwd: string, commit: string): Promise<void> {
  await writingFiles(cwd, () =>
    runGit(cwd, ["-c", "core.hooksPath=/dev/null", "reset", "-q", "--hard", commit]),
  );
}

/**
 * A git command that writes a working tree's files counts as a command that may change them (activity.ts):
 * the judge's cache would otherwise take the tree it judged before for the one on disk when nothing else
 * ran in between, and verdicts for one tree would be bound to another. It writes the files of the worktree
 * at `tree` (git never writes through a symlink in a path it checks out) and nothing else: a judge of any
 * other worktree need not count it.
 */
async function writingFiles<T>(tree: string, work: () => Promise<T>): Promise<T> {
  const ended = noteCommand(true, { tree, shielded: ["/"] });
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
 * No hook runs. Returns the new commit. `moving` runs the branch's move, which gives the commit (only the
 * move: the commit is made before it, moving no ref), so a caller that serialises ref moves holds its lock
 * for one git program.
 */
export async function commitMerge(
  plan: MergeCommitPlan,
  moving: (move: () => Promise<string>) => Promise<unknown> = (move) => move(),
): Promise<string> {
  const out = await runGitScript(
    plan.cwd,
    COMMIT_MERGE_SCRIPT,
    [
      plan.prd.file,
      `${plan.gantryFrom ?? plan.base}:${plan.gantryDir}`,
      plan.tree,
      `${plan.gantryDir}/`,
      plan.prd.path,
      plan.base,
      plan.story,
      plan.subject,
    ],
    { GIT_INDEX_FILE: plan.indexFile },
    COMMIT_MERGE_STEPS,
  );
  const [commit = "", tree = ""] = out.trim().split(" ");
  rememberTreeOfCommit(commit, tree);
  await moving(() =>
    runGit(plan.cwd, [
      "-c",
      "core.hooksPath=/dev/null",
      "update-ref",
      "-m",
      `gantry: ${plan.subject}`,
      plan.branch,
      commit,
      plan.base,
    ]).then(() => commit),
  );
  return commit;
}

const COMMIT_MERGE_STEPS = [
  "git hash-object (prd.json)",
  "git read-tree (the judged tree)",
  "git read-tree (gantry's folder)",
  "git update-index (prd.json)",
  "git write-tree",
  "git commit-tree",
];

/**
 * commitMerge in one shell: a git started from a small shell costs less than one forked from node, and the
 * serial merge waits for one helper reply instead of five. $1 prd.json's file, $2 `<commit>:<gantry dir>`,
 * $3 the judged tree, $4 the gantry dir with its slash, $5 prd.json's path, $6 base, $7 story, $8 subject.
 * The private index is GIT_INDEX_FILE. The branch is moved after it, by commitMerge.
 */
const COMMIT_MERGE_SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  'g() { git -c core.quotepath=off -c core.fsmonitor=false "$@"; }',
  `blob=$(g hash-object -w --no-filters "$1") || exit $((e+0))`,
  `g read-tree "$3" || exit $((e+1))`,
  // gantry's folder read straight by name; only when that fails is it asked whether the commit has one at all.
  `if ! g read-tree --prefix="$4" "$2" 2>/dev/null && g cat-file -e "$2" 2>/dev/null; then exit $((e+2)); fi`,
  `g update-index --add --cacheinfo "100644,$blob,$5" || exit $((e+3))`,
  `tree=$(g write-tree) || exit $((e+4))`,
  `commit=$(g commit-tree "$tree" -p "$6" -p "$7" -m "$8") || exit $((e+5))`,
  `printf '%s %s\n' "$commit" "$tree"`,
].join("\n");

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
  await writingFiles(top, async () => {
    // One-tree `-m` keeps the stat data of every entry the merge did not change, and `checkout-index -u`
    // records it for the files written: the index stays fresh, as `git status` would leave it. `-i`: the
    // files are not asked to match the old index (prd.json on disk is newer than any commit).
    await runGit(top, ["read-tree", "-m", "-i", to]);
    for (let i = 0; i < written.length; i += 500)
      await runGit(top, ["checkout-index", "-f", "-q", "-u", "--", ...written.slice(i, i + 500)]);
    for (const path of removed) removeInTree(top, path);
  });
  return [...written, ...removed];
}

/**
 * Removes `path` from the tree at `top`, as git would: not through a folder that is a symlink (the file is
 * not in this tree then, and the link's target, another worktree perhaps, is not this tree's to change).
 */
function removeInTree(top: string, path: string): void {
  const parts = path.split("/");
  let at = top;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    try {
      if (!lstatSync(at).isDirectory()) return;
    } catch {
      return;
    }
  }
  rmSync(join(top, path), { force: true });
}
