import { join, relative } from "node:path";
import { InputError } from "../config/input-error.js";
import { CONFIG_PATH, loadConfig } from "../config/loader.js";
import type { Config } from "../config/schema.js";
import { EXIT } from "../model/exit-codes.js";
import { loadPrd, readPrdRaw } from "../prd/load.js";
import { selectStories } from "../prd/select.js";
import { killRunProcesses } from "../process/leftovers.js";
import { featurePrdPath, projectRoot } from "./project.js";

export interface RunCommandOptions {
  feature: string;
  story: string[];
  dir?: string;
  dryRun?: boolean;
  allowDirty?: boolean;
  regression?: "inline" | "deferred" | "off";
  reporter: string[];
  json?: boolean;
}

/** `gantry run`: validates everything before anything runs, then hands over to the run lifecycle. */
export async function runCommand(options: RunCommandOptions): Promise<number> {
  const root = projectRoot(options.dir);
  const config = loadConfig(root, { regressionMode: options.regression });
  const { path, display } = featurePrdPath(root, options.feature);
  const prd = loadPrd(path, display);
  const known = new Set(prd.userStories.map((s) => s.id));
  const missing = options.story.filter((id) => !known.has(id));
  if (missing.length > 0)
    throw new InputError(display, "userStories", `no story with id ${missing.join(", ")} (from --story)`);
  if (options.dryRun) {
    // No pre-flight for a plan, but a misspelt dependency changes the very order it shows.
    const { describeHint, keyHints } = await import("../prd/key-hints.js");
    for (const hint of keyHints(readPrdRaw(path, display)))
      process.stderr.write(`gantry: warning: ${describeHint(display, hint)}\n`);
    return dryRun(prd, options, config);
  }

  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) {
      // Forced: no time for the orderly stop; still take every process of the run down with us.
      if (process.env.GANTRY_RUN_ID) killRunProcesses(process.env.GANTRY_RUN_ID);
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
  const { plugins, reporters } = await checkBeforeRun(
    root,
    config,
    { feature: options.feature, path, display },
    options,
  );
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
      warn: (line) => process.stderr.write(`${line}\n`),
    });
    if (options.json) {
      const final = loadPrd(path, display);
      const stories = final.userStories.map((s) => ({
        id: s.id,
        title: s.title,
        status: s.status ?? (s.passes ? "passed" : "pending"),
      }));
      process.stdout.write(`${JSON.stringify({ feature: options.feature, exitCode: code, stories })}\n`);
    }
    return code;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

async function dryRun(
  prd: ReturnType<typeof loadPrd>,
  options: RunCommandOptions,
  config: ReturnType<typeof loadConfig>,
): Promise<number> {
  const { routeStory } = await import("../stages/route.js");
  const plan = selectStories(prd, options.story).map((story) => ({
    id: story.id,
    title: story.title,
    ...routeStory(story, config),
  }));
  if (options.json) process.stdout.write(`${JSON.stringify({ feature: options.feature, plan })}\n`);
  else
    for (const p of plan)
      process.stdout.write(`${p.id}  ${p.complexity}/${p.tier}  ${p.title}  (${p.reason})\n`);
  return 0;
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
    for (const problem of report.problems.slice(0, -1)) process.stderr.write(`gantry: ${problem.message}\n`);
    throw last;
  }
  return report;
}
