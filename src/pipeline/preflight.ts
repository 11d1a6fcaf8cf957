/**
 * The check before anything is spent, for `gantry validate` and the start of every `gantry run`: the PRDs
 * (and keys that look misspelt), the plugins, the agent (known, configured, and able to start), the
 * reporters, git (a repository, an identity, a branch), the sandbox, and the programs of the quality
 * commands. Each problem is an InputError naming file, place and expectation; nothing is written.
 */
import { probeAgent } from "../agents/probe.js";
import { AgentRegistry } from "../agents/registry.js";
import { InputError, type InputErrors } from "../config/input-error.js";
import { type Config, mandatoryGates } from "../config/schema.js";
import { openRepo, type RepoLocations } from "../git/repo.js";
import { loadPlugins } from "../plugins/loader.js";
import { NO_PLUGINS, registerPluginAgents } from "../plugins/registry.js";
import type { PluginSet } from "../plugins/types.js";
import { describeHint, keyHints } from "../prd/key-hints.js";
import { parsePrd, readPrdRaw } from "../prd/load.js";
import { programLookups } from "../process/command-word.js";
import { sandboxStatusLine, sandboxSupport } from "../process/sandbox.js";
import {
  CONFIG_ORIGIN,
  type ReporterEntry,
  type ReporterOrigin,
  type ResolvedReporter,
  resolveReporters,
} from "../reporters/loader.js";
import { notARepository, uncommittedChanges } from "./repository-problems.js";

export interface PreflightInput {
  root: string;
  config: Config;
  /** How the config file is named in messages (relative to the working directory). */
  configFile: string;
  prds: { feature: string; path: string; display: string }[];
  reporters?: { entries: readonly ReporterEntry[]; origin: ReporterOrigin };
  /** Misspelt-looking PRD keys are problems, not warnings. */
  strict?: boolean;
  /** Uncommitted changes are a problem, as `gantry run` finds them at its start (`validate`; run checks them itself). */
  checkTree?: boolean;
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
  /** Where the repository is, as the git check found it: the run opens it again without asking git. */
  repository?: RepoLocations;
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

/** What one check found; checks run side by side and their findings are put together in a fixed order. */
interface Findings {
  passed: string[];
  warnings: string[];
  problems: InputError[];
}

/** Runs a check; an InputError it throws is its problem, anything else a fault that propagates. */
async function check(work: (found: Findings) => Promise<void> | void): Promise<Findings> {
  const found: Findings = { passed: [], warnings: [], problems: [] };
  try {
    await work(found);
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    found.problems.push(...((error as Partial<InputErrors>).all ?? [error]));
  }
  return found;
}

export async function preflight(input: PreflightInput): Promise<PreflightReport> {
  const { root, config, configFile } = input;
  const env = input.env ?? process.env;
  let stories = 0;
  let plugins = NO_PLUGINS;
  let resolved: ResolvedReporter[] = [];
  let located: RepoLocations | undefined;

  // The agent's and the quality commands' programs, looked up by one shell (a lookup each would be a shell each).
  const lookUp = programLookups(root, env);

  const prds = input.prds.map((prd) =>
    check((found) => {
      const raw = readPrdRaw(prd.path, prd.display);
      const count = parsePrd(prd.display, raw).userStories.length;
      stories += count;
      for (const hint of keyHints(raw)) {
        if (input.strict)
          found.problems.push(new InputError(prd.display, hint.where, strictText(hint), "GANTRY_E_PRD"));
        else found.warnings.push(`warning: ${describeHint(prd.display, hint)}`);
      }
      found.passed.push(`prd: ${prd.display} (${count} stories)`);
    }),
  );

  // The agent may come from a plugin: plugins first, then the agent, beside the other checks.
  const pluginsAndAgent = (async () => {
    const loading = await check(async (found) => {
      plugins = await loadPlugins(config, root);
      if (config.plugins.length > 0) found.passed.push(`plugins: ${config.plugins.length} loaded`);
    });
    const agent = await check(async (found) => {
      const registry = new AgentRegistry();
      registerPluginAgents(registry, plugins);
      const name = config.agent.default;
      if (!registry.names().includes(name)) {
        // With a plugin that did not load, its agents are unknown: that plugin's problem is the one to fix.
        if (loading.problems.length > 0) return;
        throw new InputError(
          configFile,
          "agent.default",
          `unknown agent "${name}"; expected one of ${registry.names().join(", ")}`,
          "GANTRY_E_CONFIG",
        );
      }
      const mode = config.agent.sandbox;
      const sandboxed = mode !== "off" && (await sandboxSupport(env)).works;
      const adapter = registry.create(name, config);
      const probe = await probeAgent(adapter, config, root, env, undefined, lookUp, { sandboxed });
      if (probe.kind === "broken")
        throw new InputError(configFile, probe.where, probe.problem, "GANTRY_E_CONFIG");
      if (probe.kind === "unconfirmed") found.warnings.push(`warning: agent ${name}: ${probe.detail}`);
      else found.passed.push(`agent ${name}: ${probe.detail}`);
      for (const c of probe.kind === "ready" ? (probe.checks ?? []) : []) {
        if (c.kind === "warning") found.warnings.push(`warning: agent ${name}: ${c.text}`);
        else found.passed.push(`agent ${name}: ${c.text}`);
      }
    });
    return [loading, agent];
  })();

  const reporters = input.reporters ?? { entries: config.reporters, origin: CONFIG_ORIGIN };
  const reporting = check(async (found) => {
    resolved = await resolveReporters(reporters.entries, root, reporters.origin);
    const names = resolved.map((r) => r.name);
    found.passed.push(`reporters: ${names.length > 0 ? names.join(", ") : "none"}`);
  });

  const repository = check(async (found) => {
    const git = await openRepo(root).catch((error: unknown) => {
      throw notARepository(root, error) ?? error;
    });
    located = git.locations;
    try {
      const identity = await git.commitIdentityProblem();
      if (identity) throw new InputError(root, "git", identity, "GANTRY_E_REPO");
      const branch = await git.branch();
      if (branch === undefined) {
        throw new InputError(
          root,
          "git",
          "HEAD is detached; check out a branch for gantry to commit the stories to",
          "GANTRY_E_REPO",
        );
      }
      if (input.checkTree) {
        const dirty = await git.dirtyFiles();
        if (dirty.length > 0) throw uncommittedChanges(root, dirty);
      }
      found.passed.push(`git: on branch ${branch}${input.checkTree ? ", nothing uncommitted" : ""}`);
    } finally {
      git.close();
    }
  });

  const sandbox = check(async (found) => {
    const mode = config.agent.sandbox;
    const support = mode === "off" ? undefined : await sandboxSupport(env);
    if (mode === "bwrap" && !support?.works) {
      throw new InputError(
        configFile,
        "agent.sandbox",
        `"bwrap" is required, but ${support?.reason ?? "bwrap does not work here"}; install bubblewrap or set "auto" or "off"`,
        "GANTRY_E_CONFIG",
      );
    }
    found.passed.push(await sandboxStatusLine(mode, env));
  });

  const commands = config.quality.commands;
  const quality = [
    check(() => {
      if (!commands.test && mandatoryGates(config).includes("verify"))
        throw new InputError(
          configFile,
          "quality.commands.test",
          "not set; expected the command that runs the project's tests (verify is a mandatory gate, so no story could pass)",
          "GANTRY_E_CONFIG",
        );
    }),
    ...QUALITY_KEYS.map((key) =>
      check(async () => {
        const command = commands[key];
        if (!command) return;
        const problem = await lookUp(command);
        if (problem)
          throw new InputError(
            configFile,
            `quality.commands.${key}`,
            `cannot run: ${problem}`,
            "GANTRY_E_CONFIG",
          );
      }),
    ),
  ];

  // One Promise.all over everything, so a fault in any check is handled the moment it happens.
  const groups = await Promise.all([
    Promise.all(prds),
    pluginsAndAgent,
    Promise.all([reporting, repository, sandbox]),
    Promise.all(quality),
  ]);
  const all = groups.flat();
  const report: PreflightReport = {
    passed: all.flatMap((f) => f.passed),
    warnings: all.flatMap((f) => f.warnings),
    problems: all.flatMap((f) => f.problems),
    stories,
    plugins,
    reporters: resolved,
    ...(located ? { repository: located } : {}),
  };
  if (commands.test && !report.problems.some((p) => p.where.startsWith("quality.commands")))
    report.passed.push(`test command: ${commands.test}`);
  return report;
}

function strictText(hint: { key: string; suggestion: string }): string {
  return `unknown key "${hint.key}"; did you mean "${hint.suggestion}"? (--strict)`;
}
