import { existsSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { InputError } from "../config/input-error.js";
import { CONFIG_PATH, loadConfig } from "../config/loader.js";
import type { Config } from "../config/schema.js";
import { ERRORS, type ErrorCode, errorLine } from "../model/errors.js";
import { EXIT } from "../model/exit-codes.js";
import type { RunSummary } from "../model/run.js";
import { errorCodeOf } from "../pipeline/run-error.js";
import { loadPrd, readPrdRaw } from "../prd/load.js";
import { killRunProcesses } from "../process/leftovers.js";
import type { ResolvedReporter } from "../reporters/loader.js";
import { featurePrdPath, projectRoot } from "./project.js";
import { dryRun } from "./run-dry.js";
import { enterShard, shardsToMerge } from "./run-shards.js";
import { featureStatus } from "./status.js";

export interface RunCommandOptions {
  feature: string;
  story: string[];
  dir?: string;
  dryRun?: boolean;
  allowDirty?: boolean;
  regression?: "inline" | "deferred" | "off";
  reporter: string[];
  json?: boolean;
  silent?: boolean;
  plan?: boolean;
  /** `--parallel N` as typed; checked here. */
  parallel?: string;
  /** `--shard i/K`: this runner's shard of `gantry plan-shards`, on branch gantry/<feature>/shard-<i>. */
  shard?: string;
  /** `--no-push`: a shard run does not push its branch. */
  push?: boolean;
  /** `gantry merge-shards`: merge the shard branches instead of running stories. */
  mergeShards?: boolean;
  /** `merge-shards --shards K`: the plan's K; only its shards are merged, each for its own stories. */
  shards?: string;
}

/**
 * `gantry run`: validates everything before anything runs, then hands over to the run lifecycle. However it
 * ends, the run directory is printed (on stderr) once it exists; with --json the outcome, or the error, is JSON.
 */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const facts: RunFacts = {};
  try {
    return await runFeatureCommand(options, facts);
  } catch (error) {
    if (options.json) printJson(runJsonOf(options.feature, facts, error));
    throw error;
  } finally {
    if (facts.runDir) process.stderr.write(`logs and reports: ${shown(facts.runDir)}\n`);
  }
}

interface RunFacts {
  runId?: string;
  runDir?: string;
  summary?: RunSummary;
  root?: string;
}

async function runFeatureCommand(options: RunCommandOptions, facts: RunFacts): Promise<number> {
  const root = projectRoot(options.dir);
  facts.root = root;
  const config = loadConfig(root, { regressionMode: options.regression });
  const { path, display } = featurePrdPath(root, options.feature);
  if (options.plan && !existsSync(path)) {
    // With --dry-run the plan is printed, not written, and there is nothing to run yet.
    const dryRun = Boolean(options.dryRun);
    const planned = await (await import("./plan.js")).planInto(root, config, {
      feature: options.feature,
      dryRun,
    });
    if (planned !== EXIT.ok || dryRun) return planned;
  }
  const prd = loadPrd(path, display);
  const known = new Set(prd.userStories.map((s) => s.id));
  const missing = options.story.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new InputError(
      display,
      "userStories",
      `no story with id ${missing.join(", ")} (from --story)`,
      "GANTRY_E_NOT_FOUND",
    );
  if (options.dryRun) {
    // No pre-flight for a plan, but a misspelt dependency changes the very order it shows.
    const { describeHint, keyHints } = await import("../prd/key-hints.js");
    for (const hint of keyHints(readPrdRaw(path, display)))
      process.stderr.write(`gantry: warning: ${describeHint(display, hint)}\n`);
    return dryRun(root, prd, options, config);
  }
  const parallel = parseParallel(options.parallel);
  const shard = options.shard === undefined ? undefined : await enterShard(root, prd, options);
  if (shard && options.story.length === 0) return 0;
  const shards = options.mergeShards ? await shardsToMerge(root, path, prd, options) : undefined;

  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      // Forced: no time for the orderly stop; still take every process of the run down with us.
      if (process.env.GANTRY_RUN_ID) killRunProcesses(process.env.GANTRY_RUN_ID);
      if (facts.runDir) process.stderr.write(`logs and reports: ${shown(facts.runDir)}\n`);
      process.exit(EXIT.interrupted);
    }
    process.stderr.write(
      `\ngantry: ${signal}: stopping (the story in flight is left paused); press Ctrl-C again to force\n`,
    );
    controller.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const { runFeature } = await import("../pipeline/run.js");
  const preflight = await checkBeforeRun(root, config, { feature: options.feature, path, display }, options);
  const { plugins } = preflight;
  const reporters = await withTerminalReporter(preflight.reporters, root, config.reporters, options);
  try {
    const code = await runFeature({
      root,
      feature: options.feature,
      prdPath: path,
      config,
      only: options.story,
      allowDirty: Boolean(options.allowDirty),
      signal: controller.signal,
      reporters,
      plugins,
      ...(preflight.repository ? { repository: preflight.repository } : {}),
      warn: (line) => process.stderr.write(`${line}\n`),
      onStart: (run) => Object.assign(facts, run),
      onSummary: (summary) => Object.assign(facts, { summary }),
      ...(parallel === undefined ? {} : { parallel }),
      ...(shards ? { shards } : {}),
    });
    if (shard) {
      const { finishShard } = await import("../pipeline/shards/shard-branch.js");
      for (const note of await finishShard(root, options.feature, shard.index, path, options.push !== false))
        process.stderr.write(`gantry: ${note}\n`);
    }
    let exitCode = code;
    let ledgerCheck: Record<string, unknown> | undefined;
    if (options.mergeShards) {
      // merge-shards ends with `gantry ledger check` on the result (with --json, as `ledgerCheck` in its one document).
      const { ledgerCheckCommand } = await import("./ledger.js");
      const checked = await ledgerCheckCommand({
        dir: root,
        ...(options.json ? { json: true, onJson: (report) => (ledgerCheck = report) } : {}),
      });
      if (code === EXIT.ok) exitCode = checked;
    }
    if (options.json)
      printJson({
        ...featureStatus(root, options.feature),
        ...runJsonOf(options.feature, facts),
        exitCode,
        ...(ledgerCheck ? { ledgerCheck } : {}),
      });
    return exitCode;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * The pre-flight (pipeline/preflight.ts) before the lock is taken or anything is written: every problem is
 * said, the last one as the exit-2 error. Reporters come from --reporter, else the config; with --json,
 * stdout is for the summary alone.
 */
async function checkBeforeRun(
  root: string,
  config: Config,
  prd: { feature: string; path: string; display: string },
  options: RunCommandOptions,
) {
  const { CLI_ORIGIN, CONFIG_ORIGIN } = await import("../reporters/loader.js");
  const { preflight } = await import("../pipeline/preflight.js");
  const fromCli = options.reporter.length > 0;
  const entries = (fromCli ? options.reporter : config.reporters).filter(
    (entry) => !(options.json && (entry === "default" || entry === "json")),
  );
  const configPath = join(root, CONFIG_PATH);
  const report = await preflight({
    root,
    config,
    configFile: relative(process.cwd(), configPath) || configPath,
    prds: [prd],
    reporters: { entries, origin: fromCli ? CLI_ORIGIN : CONFIG_ORIGIN },
  });
  for (const warning of report.warnings) process.stderr.write(`gantry: ${warning}\n`);
  const last = report.problems.at(-1);
  if (last) {
    for (const problem of report.problems.slice(0, -1))
      process.stderr.write(`${errorLine(problem.message, problem.code)}\n`);
    throw last;
  }
  return report;
}

/**
 * File reporters add to the terminal's progress, they do not replace it: `default` joins them unless a reporter
 * that writes to the terminal (`default`, `json`) is named, or --silent, or --json (stdout is the summary's).
 */
async function withTerminalReporter(
  resolved: ResolvedReporter[],
  root: string,
  configured: Config["reporters"],
  options: RunCommandOptions,
): Promise<ResolvedReporter[]> {
  const named = options.reporter.length > 0 ? options.reporter : configured;
  const terminal = named.some((entry) => {
    const spec = typeof entry === "string" ? entry : entry[0];
    return spec === "default" || spec === "json";
  });
  if (options.json || options.silent || terminal) return resolved;
  const { CLI_ORIGIN, resolveReporters } = await import("../reporters/loader.js");
  return [...(await resolveReporters(["default"], root, CLI_ORIGIN)), ...resolved];
}

/** What `run --json` adds to the feature's status: the run, its summary and cost, or the error that stopped it. */
function runJsonOf(feature: string, facts: RunFacts, error?: unknown) {
  const code = error === undefined ? undefined : errorCodeOf(error);
  return {
    feature,
    runId: facts.runId ?? null,
    runDir: facts.runDir ?? null,
    ...(facts.summary ? { summary: facts.summary, costUsd: facts.summary.costUsd } : {}),
    ...(error !== undefined
      ? {
          exitCode: ERRORS[code as ErrorCode].exit,
          error: { code, message: error instanceof Error ? error.message : String(error) },
        }
      : {}),
  };
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A path relative to the working directory when it is below it, else as it is. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/** `--parallel N`: a whole number from 0 (one worker a core) to 64. */
function parseParallel(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n > 64)
    throw new InputError(
      "--parallel",
      "",
      `expected a whole number from 0 to 64, got ${JSON.stringify(value)}`,
      "GANTRY_E_USAGE",
    );
  return n;
}
