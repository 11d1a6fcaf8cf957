/**
 * What `gantry init` checks about the commands it proposes: that each one's programs are installed, and
 * that lint and typecheck pass on the project as it is now — a check that already fails would fail every
 * story, which would be blamed for it.
 */
import { basename, join } from "node:path";
import type { CommandKey } from "../config/detect/index.js";
import { execCommand } from "../process/executor.js";
import { findOnPath, isExecutableFile } from "../process/find-executable.js";
import { judgingWrapper } from "../process/judging-sandbox.js";
import { judgingSupport } from "../process/judging-support.js";
import { sandboxSupport } from "../process/sandbox.js";
import { shellQuote } from "../util/shell-quote.js";
import { outputHead } from "../verification/unreadable.js";

/** The baseline checks init runs, in this order. */
export const BASELINE_KEYS = ["lint", "typecheck"] as const satisfies readonly CommandKey[];
const BASELINE_TIMEOUT_MS = 300_000;
const PYTHONS = new Set(["python", "python3"]);

export interface BaselineRun {
  key: (typeof BASELINE_KEYS)[number];
  command: string;
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The first lines it printed. */
  head: string[];
  /** It ran in the judging sandbox, as a run runs it. */
  sandboxed: boolean;
}

/**
 * The programs a command needs that are not installed: the first word of each `&&` / `||` / `;` / `|`
 * part on PATH, `npx X` in node_modules/.bin (npx would fetch it from the registry otherwise), and
 * `python -m M` importable by that python.
 */
export async function missingPrograms(
  command: string,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const missing: string[] = [];
  for (const part of command.split(/&&|\|\||;|\|/)) {
    const words = part
      .trim()
      .split(/\s+/)
      .filter((w) => w && !/^\w+=/.test(w));
    const [program, ...rest] = words;
    if (!program) continue;
    const found = program.includes("/")
      ? isExecutableFile(join(root, program))
      : findOnPath(program, env.PATH);
    if (!found) {
      missing.push(program);
      continue;
    }
    if (program === "npx") {
      const tool = rest.find((w) => !w.startsWith("-"));
      if (tool && !isExecutableFile(join(root, "node_modules", ".bin", tool))) missing.push(`${tool} (npx)`);
    } else if (PYTHONS.has(basename(program)) && rest[0] === "-m" && rest[1]) {
      const python = program.includes("/") ? join(root, program) : program;
      if (!(await importable(python, rest[1], root, env))) missing.push(`${rest[1]} (${program} -m)`);
    }
  }
  return [...new Set(missing)];
}

/** Whether `python` finds module `name` without running it. */
async function importable(
  python: string,
  name: string,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const probe = `import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(${JSON.stringify(name)}) else 1)`;
  const result = await execCommand({
    command: `${shellQuote(python)} -c ${shellQuote(probe)}`,
    cwd: root,
    env,
    timeoutMs: 20_000,
    tailBytes: 4096,
  });
  return result.exitCode === 0;
}

/**
 * The judging sandbox a run would put lint and typecheck in (a throw-away layer over the tree and the home,
 * a fresh /tmp, own namespaces), or none when it cannot work here: the project's code is run as a run runs it.
 */
async function judgingWrapperFor(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<readonly string[] | undefined> {
  const found = await sandboxSupport(env);
  if (!found.works || !found.bwrap) return undefined;
  const judging = await judgingSupport(found.bwrap, env);
  return judging.works
    ? judgingWrapper({ programs: judging.programs, repository: root }, root, env)
    : undefined;
}

/**
 * Runs lint and typecheck once, each bounded, on the project as it is, in the judging sandbox when it works
 * here; a command not installed is not run.
 */
export async function runBaseline(
  root: string,
  commands: Partial<Record<CommandKey, string>>,
  env: NodeJS.ProcessEnv,
  skip: ReadonlySet<CommandKey>,
): Promise<BaselineRun[]> {
  const runs: BaselineRun[] = [];
  const keys = BASELINE_KEYS.filter((key) => commands[key] && !skip.has(key));
  const wrapper = keys.length > 0 ? await judgingWrapperFor(root, env) : undefined;
  for (const key of keys) {
    const command = commands[key] as string;
    const result = await execCommand({
      ...(wrapper ? { wrapper } : {}),
      command,
      cwd: root,
      env,
      timeoutMs: BASELINE_TIMEOUT_MS,
      tailBytes: 64 * 1024,
      readsOnly: true,
    });
    runs.push({
      key,
      command,
      passed: result.exitCode === 0 && !result.timedOut,
      exitCode: result.exitCode,
      timedOut: result.timedOut,
      head: outputHead(result.output, 5),
      sandboxed: wrapper !== undefined,
    });
  }
  return runs;
}
