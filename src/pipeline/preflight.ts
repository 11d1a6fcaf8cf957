/**
 * The check before anything is spent, for `gantry validate` and the start of every `gantry run`: the PRDs
 * (and keys that look misspelt), the plugins, the agent (known, configured, and able to start), the
 * reporters, git (a repository, an identity, a branch), the sandbox, and the programs of the quality
 * commands. Each problem is an InputError naming file, place and expectation; nothing is written.
 */
import type { InputError } from "../config/input-error.js";
import type { RepoLocations } from "../git/repo.js";
import { loadPlugins } from "../plugins/loader.js";
import { NO_PLUGINS } from "../plugins/registry.js";
import type { PluginSet } from "../plugins/types.js";
import { programLookups } from "../process/command-word.js";
import type { ResolvedReporter } from "../reporters/loader.js";
import {
  agentReady,
  type Check,
  checkEach,
  type Findings,
  gitRepository,
  type PreflightContext,
  type PreflightInput,
  pluginModules,
  prdFiles,
  qualityPrograms,
  reporterModules,
  sandboxMode,
  testCommandSet,
} from "./preflight-checks.js";

export type { PreflightInput };

export interface PreflightReport {
  /** What each check found, one line each, for `validate`. */
  passed: string[];
  warnings: string[];
  problems: InputError[];
  stories: number;
  /** Loaded once here and handed to the run, so no plugin factory is called twice. */
  plugins: PluginSet;
  reporters: ResolvedReporter[];
  /** Where the repository is, as the git check found it: the run opens it again without asking git. */
  repository?: RepoLocations;
}

/** Every check, in the order `validate` reports what it found. All run side by side. */
const CHECKS: readonly Check[] = [
  prdFiles,
  pluginModules,
  agentReady,
  reporterModules,
  gitRepository,
  sandboxMode,
  testCommandSet,
  qualityPrograms,
];

export async function preflight(input: PreflightInput): Promise<PreflightReport> {
  const env = input.env ?? process.env;
  const ctx: PreflightContext = {
    input,
    env,
    lookUp: programLookups(input.root, env),
    plugins: loadPlugins(input.config, input.root).then(
      (set) => ({ set }),
      (error: unknown) => ({ error }),
    ),
    found: { stories: 0, reporters: [] },
  };
  // Side by side in one Promise.all, so a fault in any check is handled the moment it happens.
  const found: Findings = { passed: [], warnings: [], problems: [] };
  await checkEach(found, CHECKS, (run, own) => run(ctx, own));
  const loaded = await ctx.plugins;
  const report: PreflightReport = {
    ...found,
    stories: ctx.found.stories,
    plugins: "set" in loaded ? loaded.set : NO_PLUGINS,
    reporters: ctx.found.reporters,
    ...(ctx.found.repository ? { repository: ctx.found.repository } : {}),
  };
  const { test } = input.config.quality.commands;
  if (test && !report.problems.some((p) => p.where.startsWith("quality.commands")))
    report.passed.push(`test command: ${test}`);
  return report;
}
