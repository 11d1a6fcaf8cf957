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
 * Runs git in `cwd` for a question about that repository: a parent git's repository variables are
 * dropped, `env` may add gantry's own (a private GIT_INDEX_FILE). Fails with git's stderr in the message.
 */
export async function runGit(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete merged[name];
  Object.assign(merged, env);
  try {
    const { stdout } = await run("git", ["-c", "core.quotepath=off", ...args], {
      cwd,
      env: merged,
      encoding: "utf8",
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new Error(`git ${args[0]} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, { cause: error });
  }
}
