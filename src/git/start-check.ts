import { runGit } from "./exec.js";

/**
 * Files changed in the project's working tree (relative to the project root), gantry's own excluded:
 * git's status, which honours the repository's settings as the judge does (sparse checkout,
 * skip-worktree and assume-unchanged entries, fileMode, autocrlf).
 */
export async function dirtyFiles(
  projectRoot: string,
  outside: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<string[]> {
  // GIT_OPTIONAL_LOCKS=0: status does not write its refreshed stat data back into the user's index.
  const out = await runGit(
    projectRoot,
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".", ...outside],
    { ...env, GIT_OPTIONAL_LOCKS: "0" },
  );
  const paths: string[] = [];
  const entries = out.split("\0");
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] ?? "";
    if (entry.length <= 3) continue;
    paths.push(entry.slice(3));
    // A rename's second field is its source path.
    if (entry[0] === "R" || entry[0] === "C") i++;
  }
  return paths;
}
