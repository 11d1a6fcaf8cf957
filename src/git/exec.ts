import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createSpawnHelperPool, type SpawnHelperPool } from "../process/spawn-helper.js";
import { helperShell } from "../process/spawn-helper-shell.js";
import { GitError } from "./git-error.js";

const execFileAsync = promisify(execFile);

/** No git command of gantry's runs longer than this (a full add of a very large tree included). */
const GIT_TIMEOUT_MS = Number(process.env.GANTRY_GIT_TIMEOUT_MS) || 30 * 60_000;

/**
 * Children are started by a long-lived small shell (process/spawn-helper.ts) rather than forked from node,
 * whose fork copies its whole address space. GANTRY_SPAWN_HELPER=0 forks from node as before, =sh takes
 * /bin/sh with setsid even where bash is (both are tested).
 */
let pool: SpawnHelperPool | undefined | null;

function helperPool(): SpawnHelperPool | undefined {
  if (pool === undefined) pool = process.env.GANTRY_SPAWN_HELPER !== "0" ? startPool() : null;
  return pool ?? undefined;
}

function startPool(): SpawnHelperPool | null {
  const shell =
    process.env.GANTRY_SPAWN_HELPER === "sh"
      ? { path: "/bin/sh", args: [], jobControl: false }
      : helperShell();
  return shell ? createSpawnHelperPool(shell, gitEnvironment({})) : null;
}

/**
 * Up to `size` git commands at once from the helpers (default 2). A parallel run asks for one a worker and
 * one more: with fewer, the serial merge's git commands wait in line behind the workers' own.
 */
export function widenGitHelpers(size: number): void {
  helperPool()?.widen(size);
}

/**
 * Runs `file args` in `cwd` with the git environment: from the helper when there is one, else forked from
 * node. Fails as execFile does: an error with the exit `code` and `stderr`.
 */
async function run(
  file: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ stdout: string }> {
  const helper = helperPool();
  if (!helper) {
    return execFileAsync(file, args, {
      cwd: options.cwd,
      env: gitEnvironment(options.env),
      encoding: "utf8",
      maxBuffer: 1024 * 1024 * 1024,
      timeout: GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
  }
  const result = await helper.run({
    argv: [file, ...args],
    cwd: options.cwd,
    env: options.env,
    timeoutMs: GIT_TIMEOUT_MS,
  });
  if (result.code === 0) return { stdout: result.stdout };
  const why = result.timedOut ? `timed out after ${GIT_TIMEOUT_MS} ms` : `exit code ${result.code}`;
  throw Object.assign(new Error(`${file} failed: ${why}`), {
    code: result.code,
    stderr: result.stderr,
    stdout: result.stdout,
  });
}

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
  try {
    // fsmonitor off: no program of the repository's config may run from gantry's git (and hold the helper's reply channel).
    const { stdout } = await run("git", ["-c", "core.quotepath=off", "-c", "core.fsmonitor=false", ...args], {
      cwd,
      env,
    });
    return stdout;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new GitError(`git ${args[0]} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, { cause: error });
  }
}

function gitEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete merged[name];
  return Object.assign(merged, env);
}

export interface GitStep {
  args: string[];
  /** A failure whose standard error contains this is not one (`git add` naming an ignored path). */
  tolerate?: string;
}

/** Exit code of the shell when step i failed: FIRST_STEP_EXIT + i. */
export const FIRST_STEP_EXIT = 200;

/**
 * Runs git commands one after the other, as runGit would, but from one /bin/sh: node forks a copy of
 * its whole address space for every child, a small shell does not, so each git after the first costs
 * several milliseconds less. Stops at the first failing step and fails as runGit does, naming that
 * command; returns the last command's standard output. Arguments reach git as positional parameters,
 * never as shell text.
 */
export async function runGitSteps(
  cwd: string,
  steps: GitStep[],
  env: Record<string, string> = {},
): Promise<string> {
  const params: string[] = [];
  const lines = steps.map((step, i) => {
    const command = [
      "git -c core.quotepath=off -c core.fsmonitor=false",
      ...step.args.map((arg) => `"\${${params.push(arg)}}"`),
    ].join(" ");
    const last = i === steps.length - 1;
    if (step.tolerate === undefined)
      return `${command}${last ? "" : " >/dev/null"} || exit ${FIRST_STEP_EXIT + i}`;
    params.push(step.tolerate);
    const tolerated = `"\${${params.length}}"`;
    return [
      `if ! err=$(${command} 2>&1 >/dev/null); then`,
      `  case "$err" in *${tolerated}*) ;; *) printf '%s\\n' "$err" >&2; exit ${FIRST_STEP_EXIT + i} ;; esac`,
      "fi",
    ].join("\n");
  });
  try {
    const { stdout } = await run("/bin/sh", ["-c", lines.join("\n"), "gantry-git", ...params], { cwd, env });
    return stdout;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const step = typeof code === "number" ? steps[code - FIRST_STEP_EXIT] : undefined;
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    const what = step
      ? `git ${subcommand(step.args)}`
      : `git ${steps.map((s) => subcommand(s.args)).join(", ")}`;
    throw new GitError(`${what} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, { cause: error });
  }
}

/** The git command a step runs, past its `-c name=value` options. */
function subcommand(args: string[]): string {
  let i = 0;
  while (args[i] === "-c") i += 2;
  return args[i] ?? "";
}

/**
 * Runs a shell script of git commands with `params` as its positional parameters (never as shell text),
 * the repository variables of a parent git dropped and `env` added, as runGitSteps does. A failing script
 * says which step with `exit N` and its message on standard error; `steps` names step N.
 */
export async function runGitScript(
  cwd: string,
  script: string,
  params: string[],
  env: Record<string, string>,
  steps: string[],
): Promise<string> {
  try {
    const { stdout } = await run("/bin/sh", ["-c", script, "gantry-git", ...params], { cwd, env });
    return stdout;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const step = typeof code === "number" ? steps[code - FIRST_STEP_EXIT] : undefined;
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").trim();
    throw new GitError(`${step ?? "git"} failed in ${cwd}${stderr ? `: ${stderr}` : ""}`, { cause: error });
  }
}
