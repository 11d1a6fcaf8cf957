import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Variables through which a parent git (a hook, a rebase) points at *its* repository and index. Git drops
 * them itself before it works in another repository; so do we: the question is about projectRoot's.
 */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_PREFIX",
  "GIT_IMPLICIT_WORK_TREE",
  "GIT_NAMESPACE",
];

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
    git(projectRoot, ["diff", "--name-only", "--no-renames", "--relative", "-z", baseSha, "--"]),
    git(projectRoot, ["ls-files", "--others", "--exclude-standard", "-z", "--", "."]),
  ]);
  const files = new Set([...diff.split("\0"), ...untracked.split("\0")].filter(Boolean));
  return [...files].sort();
}

async function git(cwd: string, args: string[]): Promise<string> {
  const env = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  try {
    const { stdout } = await run("git", ["-c", "core.quotepath=off", ...args], {
      cwd,
      env,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(`git ${args[0]} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, { cause: error });
  }
}
