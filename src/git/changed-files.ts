import { runGit } from "./exec.js";
import { EMPTY_TREE, UNBORN } from "./judge.js";

/**
 * Files changed since `baseSha`: committed since, staged, unstaged and untracked (not ignored), deleted
 * ones included; a rename counts as the old path and the new one. Paths are relative to `projectRoot`,
 * which may be a subdirectory of the repository: files outside it are left out. Sorted.
 */
export async function changedFiles(projectRoot: string, baseSha: string): Promise<string[]> {
  if (!/^[^-\s][^\s]*$/.test(baseSha)) {
    throw new TypeError(`changedFiles: baseSha: expected a commit, got ${JSON.stringify(baseSha)}`);
  }
  // Both run in projectRoot: --relative (and ls-files by default) limit the answer to it and print
  // paths relative to it. -z keeps unusual names (spaces, quotes, non-ASCII) as they are.
  const [diff, untracked] = await Promise.all([
    runGit(projectRoot, ["diff", "--name-only", "--no-renames", "--relative", "-z", baseSha, "--"]),
    runGit(projectRoot, ["ls-files", "--others", "--exclude-standard", "-z", "--", "."]),
  ]);
  const files = new Set([...diff.split("\0"), ...untracked.split("\0")].filter(Boolean));
  return [...files].sort();
}

/**
 * Files that differ between a commit (UNBORN: none) and a tree, relative to the project root, deleted ones
 * included, sorted: `git diff-tree`, whose cost grows with the change. `outside`: pathspecs left out.
 */
export async function changedBetween(
  projectRoot: string,
  base: string,
  tree: string,
  outside: readonly string[],
): Promise<string[]> {
  const out = await runGit(projectRoot, [
    "diff-tree",
    "-r",
    "-z",
    "--name-only",
    "--no-renames",
    "--relative",
    base === UNBORN ? EMPTY_TREE : base,
    tree,
    "--",
    ".",
    ...outside,
  ]);
  return [...new Set(out.split("\0").filter(Boolean))].sort();
}
