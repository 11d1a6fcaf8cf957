/**
 * The check before anything is spent, for `gantry validate` and the start of every `gantry run`: the PRDs
 * (and keys that look misspelt), the plugins, the agent (known, configured, and able to start), the
 * reporters, git (a repository, an identity, a branch), the sandbox, and the programs of the quality
 * commands. Each problem is an InputError naming file, place and expectation; nothing is written.
 */
import { probeAgent } from "../agents/probe.js";
import { AgentRegistry } from "../agents/registry.js";
import { InputError } from "../config/input-error.js";
import { type Config, mandatoryGates } from "../config/schema.js";
import { openRepo } from "../git/repo.js";
import { loadPlugins } from "../plugins/loader.js";
import { NO_PLUGINS, registerPluginAgents } from "../plugins/registry.js";
import type { PluginSet } from "../plugins/types.js";
import { describeHint, keyHints } from "../prd/key-hints.js";
import { parsePrd, readPrdRaw } from "../prd/load.js";
import { programProblem } from "../process/command-word.js";
import { sandboxStatusLine, sandboxSupport } from "../process/sandbox.js";
import {
  CONFIG_ORIGIN,
  type ReporterEntry,
  type ReporterOrigin,
  type ResolvedReporter,
  resolveReporters,
} from "../reporters/loader.js";

export interface PreflightInput {
  root: string;
  config: Config;
  /** How the config file is named in messages (relative to the working directory). */
  configFile: string;
  prds: { feature: string; path: string; display: string }[];
  reporters?: { entries: readonly ReporterEntry[]; origin: ReporterOrigin };
  /** Misspelt-looking PRD keys are problems, not warnings. */
  strict?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface PreflightReport {
  /** What each check found, one line each, for `validate`. */
  passed: string[];
  warnings: string[];
  problems: InputError[];
  stories: number;
  /** Loaded once here and handed to the run, so no plugin factory is called twice. */
  plugins: PluginSet;
  reporters: ResolvedReporter[];
}

const QUALITY_KEYS = [
  "test",
  "testScoped",
  "lint",
  "typecheck",
  "lintFix",
  "formatFix",
  "acceptance",
] as const;

export async function preflight(input: PreflightInput): Promise<PreflightReport> {
  const { root, config, configFile } = input;
  const env = input.env ?? process.env;
  const report: PreflightReport = {
    passed: [],
    warnings: [],
    problems: [],
    stories: 0,
    plugins: NO_PLUGINS,
    reporters: [],
  };
  const attempt = async (work: () => Promise<void> | void): Promise<boolean> => {
    try {
      await work();
      return true;
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      report.problems.push(error);
      return false;
    }
  };

  for (const prd of input.prds) {
    await attempt(() => {
      const raw = readPrdRaw(prd.path, prd.display);
      const stories = parsePrd(prd.display, raw).userStories.length;
      report.stories += stories;
      for (const hint of keyHints(raw)) {
        if (input.strict) report.problems.push(new InputError(prd.display, hint.where, strictText(hint)));
        else report.warnings.push(`warning: ${describeHint(prd.display, hint)}`);
      }
      report.passed.push(`prd: ${prd.display} (${stories} stories)`);
    });
  }

  const pluginsLoaded = await attempt(async () => {
    report.plugins = await loadPlugins(config, root);
    if (config.plugins.length > 0) report.passed.push(`plugins: ${config.plugins.length} loaded`);
  });

  await attempt(async () => {
    const registry = new AgentRegistry();
    registerPluginAgents(registry, report.plugins);
    const name = config.agent.default;
    if (!registry.names().includes(name)) {
      // With a plugin that did not load, its agents are unknown: that plugin's problem is the one to fix.
      if (!pluginsLoaded) return;
      throw new InputError(
        configFile,
        "agent.default",
        `unknown agent "${name}"; expected one of ${registry.names().join(", ")}`,
      );
    }
    const probe = await probeAgent(registry.create(name, config), config, root, env);
    if (probe.kind === "broken") throw new InputError(configFile, probe.where, probe.problem);
    if (probe.kind === "unconfirmed") report.warnings.push(`warning: agent ${name}: ${probe.detail}`);
    else report.passed.push(`agent ${name}: ${probe.detail}`);
  });

  const reporters = input.reporters ?? { entries: config.reporters, origin: CONFIG_ORIGIN };
  await attempt(async () => {
    report.reporters = await resolveReporters(reporters.entries, root, reporters.origin);
    const names = report.reporters.map((r) => r.name);
    report.passed.push(`reporters: ${names.length > 0 ? names.join(", ") : "none"}`);
  });

  await attempt(async () => {
    const git = await openRepo(root);
    try {
      const identity = await git.commitIdentityProblem();
      if (identity) throw new InputError(root, "git", identity);
      const branch = await git.branch();
      if (branch === undefined) {
        throw new InputError(
          root,
          "git",
          "HEAD is detached; check out a branch for gantry to commit the stories to",
        );
      }
      report.passed.push(`git: on branch ${branch}`);
    } finally {
      git.close();
    }
  });

  await attempt(async () => {
    const mode = config.agent.sandbox;
    const works = mode === "off" || (await sandboxSupport(env)).works;
    if (mode === "bwrap" && !works) {
      const reason = (await sandboxSupport(env)).reason ?? "bwrap does not work here";
      throw new InputError(
        configFile,
        "agent.sandbox",
        `"bwrap" is required, but ${reason}; install bubblewrap or set "auto" or "off"`,
      );
    }
    report.passed.push(await sandboxStatusLine(mode, env));
  });

  const commands = config.quality.commands;
  if (!commands.test && mandatoryGates(config).includes("verify")) {
    report.problems.push(
      new InputError(
        configFile,
        "quality.commands.test",
        "not set; expected the command that runs the project's tests (verify is a mandatory gate, so no story could pass)",
      ),
    );
  }
  for (const key of QUALITY_KEYS) {
    const command = commands[key];
    if (!command) continue;
    await attempt(async () => {
      const problem = await programProblem(command, root, env);
      if (problem) throw new InputError(configFile, `quality.commands.${key}`, `cannot run: ${problem}`);
    });
  }
  if (commands.test && !report.problems.some((p) => p.where.startsWith("quality.commands"))) {
    report.passed.push(`test command: ${commands.test}`);
  }
  return report;
}

function strictText(hint: { key: string; suggestion: string }): string {
  return `unknown key "${hint.key}"; did you mean "${hint.suggestion}"? (--strict)`;
}
