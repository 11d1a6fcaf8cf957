import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { GitError } from "./git-error.js";

/** No git command of gantry's runs longer than this (a full add of a very large tree included). */
const GIT_TIMEOUT_MS = Number(process.env.GANTRY_GIT_TIMEOUT_MS) || 30 * 60_000;

/**
 * git, resolved once from the system's own folders, never from a PATH entry a session could write (a
 * `git` dropped in `~/.local/bin` would otherwise run as gantry); `git` from PATH only where none is there.
 */
export const GIT =
  ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"].find((path) => existsSync(path)) ?? "git";
const SH = existsSync("/bin/sh") ? "/bin/sh" : "sh";

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
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
];

/** Command-line config of every gantry git unless the caller gives its own: no hook, no fsmonitor runs. */
export const NO_PROGRAMS: Readonly<Record<string, string>> = {
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "core.hooksPath",
  GIT_CONFIG_VALUE_0: "/dev/null",
  GIT_CONFIG_KEY_1: "core.fsmonitor",
  GIT_CONFIG_VALUE_1: "false",
};

function run(
  file: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      {
        cwd,
        env: gitEnvironment(env),
        encoding: "utf8",
        maxBuffer: 1024 * 1024 * 1024,
        timeout: GIT_TIMEOUT_MS,
        killSignal: "SIGKILL",
      },
      (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stdout, stderr }));
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/**
 * Runs git in `cwd` for a question about that repository: a parent git's repository variables are
 * dropped, `env` may add gantry's own (a private GIT_INDEX_FILE, the run's settings); `input` is its
 * standard input. Fails with a GitError holding git's stderr and exit code.
 */
export async function runGit(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
): Promise<string> {
  try {
    return await run(GIT, args, cwd, env, input);
  } catch (error) {
    throw gitError(`git ${args[0]}`, cwd, error);
  }
}

function gitError(what: string, cwd: string, error: unknown): GitError {
  const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
  const code = (error as { code?: unknown }).code;
  return new GitError(`${what} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, {
    cause: error,
    exitCode: typeof code === "number" ? code : undefined,
    stderr,
  });
}

function gitEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete merged[name];
  return Object.assign(merged, env.GIT_CONFIG_COUNT === undefined ? NO_PROGRAMS : {}, env);
}

/** Exit code of the shell when step i failed: FIRST_STEP_EXIT + i. */
export const FIRST_STEP_EXIT = 200;

/**
 * Runs a shell script of git commands (`git` in it is the resolved git) with `params` as its positional
 * parameters (never as shell text), environment as runGit's. A failing script says which step with
 * `exit FIRST_STEP_EXIT+N` and its message on standard error; `steps` names step N.
 */
export async function runGitScript(
  cwd: string,
  script: string,
  params: string[],
  env: Record<string, string>,
  steps: string[],
): Promise<string> {
  try {
    return await run(SH, ["-c", `git() { "$GANTRY_GIT" "$@"; }\n${script}`, "gantry-git", ...params], cwd, {
      ...env,
      GANTRY_GIT: GIT,
    });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const step = typeof code === "number" ? steps[code - FIRST_STEP_EXIT] : undefined;
    throw gitError(step ?? "git", cwd, error);
  }
}
