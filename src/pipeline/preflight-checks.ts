/**
 * The pre-flight's checks (preflight.ts runs them side by side): each looks at one thing before anything is
 * spent, and notes what passed, warnings, and problems as InputErrors naming file, place and expectation.
 */
import { probeAgent } from "../agents/probe.js";
import { AgentRegistry } from "../agents/registry.js";
import { InputError, type InputErrors } from "../config/input-error.js";
import { type Config, mandatoryGates } from "../config/schema.js";
import { openRepo, type RepoLocations } from "../git/repo.js";
import { NO_PLUGINS, registerPluginAgents } from "../plugins/registry.js";
import type { PluginSet } from "../plugins/types.js";
import { describeHint, keyHints } from "../prd/key-hints.js";
import { parsePrd, readPrdRaw } from "../prd/load.js";
import type { programLookups } from "../process/command-word.js";
import { sandboxSupport } from "../process/sandbox.js";
import { sandboxStatusLine } from "../process/sandbox-status.js";
import {
  CONFIG_ORIGIN,
  type ReporterEntry,
  type ReporterOrigin,
  type ResolvedReporter,
  resolveReporters,
} from "../reporters/loader.js";
import { commitBranch, notARepository, uncommittedChanges } from "./repository-problems.js";

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

const QUALITY_KEYS = [
  "test",
  "testScoped",
  "lint",
  "typecheck",
  "lintFix",
  "formatFix",
  "acceptance",
] as const;

/** What one check found; checks run side by side and their findings are put together in the table's order. */
export interface Findings {
  passed: string[];
  warnings: string[];
  problems: InputError[];
}

/** What the checks read, and what they hand the run. */
export interface PreflightContext {
  input: PreflightInput;
  env: NodeJS.ProcessEnv;
  /** The agent's and the quality commands' programs, looked up by one shell (a lookup each would be a shell each). */
  lookUp: ReturnType<typeof programLookups>;
  /** The plugins, loaded once: the plugins check reports them, the agent check waits for them (an agent may come from one). */
  plugins: Promise<{ set: PluginSet } | { error: unknown }>;
  /** What the run is handed: filled in by the checks. */
  found: { stories: number; reporters: ResolvedReporter[]; repository?: RepoLocations };
}

export type Check = (ctx: PreflightContext, found: Findings) => Promise<void> | void;

/** Runs `work`; an InputError it throws is a problem found, anything else a fault that propagates. */
async function noting(found: Findings, work: () => Promise<void> | void): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    found.problems.push(...((error as Partial<InputErrors>).all ?? [error]));
  }
}

/** `work` for each item side by side, one item's problem not stopping the others; findings in the items' order. */
export async function checkEach<T>(
  found: Findings,
  items: readonly T[],
  work: (item: T, found: Findings) => Promise<void> | void,
): Promise<void> {
  const each = await Promise.all(
    items.map(async (item) => {
      const own: Findings = { passed: [], warnings: [], problems: [] };
      await noting(own, () => work(item, own));
      return own;
    }),
  );
  for (const own of each) {
    found.passed.push(...own.passed);
    found.warnings.push(...own.warnings);
    found.problems.push(...own.problems);
  }
}

/** Each PRD parses; its story count, and keys that look misspelt (problems with --strict). */
export function prdFiles({ input, found: handed }: PreflightContext, found: Findings): Promise<void> {
  return checkEach(found, input.prds, (prd, own) => {
    const raw = readPrdRaw(prd.path, prd.display);
    const count = parsePrd(prd.display, raw).userStories.length;
    handed.stories += count;
    for (const hint of keyHints(raw)) {
      if (input.strict)
        own.problems.push(new InputError(prd.display, hint.where, strictText(hint), "GANTRY_E_PRD"));
      else own.warnings.push(`warning: ${describeHint(prd.display, hint)}`);
    }
    own.passed.push(`prd: ${prd.display} (${count} stories)`);
  });
}

export async function pluginModules({ input, plugins }: PreflightContext, found: Findings): Promise<void> {
  const loaded = await plugins;
  if ("error" in loaded) throw loaded.error;
  if (input.config.plugins.length > 0) found.passed.push(`plugins: ${input.config.plugins.length} loaded`);
}

/** The configured agent is known (built in or from a plugin) and its CLI starts, as the probe finds it. */
export async function agentReady(ctx: PreflightContext, found: Findings): Promise<void> {
  const { config, configFile, root } = ctx.input;
  const loaded = await ctx.plugins;
  const registry = new AgentRegistry();
  registerPluginAgents(registry, "set" in loaded ? loaded.set : NO_PLUGINS);
  const name = config.agent.default;
  if (!registry.names().includes(name)) {
    // With a plugin that did not load, its agents are unknown: that plugin's problem is the one to fix.
    if ("error" in loaded) return;
    throw new InputError(
      configFile,
      "agent.default",
      `unknown agent "${name}"; expected one of ${registry.names().join(", ")}`,
      "GANTRY_E_CONFIG",
    );
  }
  const sandboxed = config.agent.sandbox !== "off" && (await sandboxSupport(ctx.env)).works;
  const adapter = registry.create(name, config);
  const probe = await probeAgent(adapter, config, root, ctx.env, undefined, ctx.lookUp, { sandboxed });
  if (probe.kind === "broken")
    throw new InputError(configFile, probe.where, probe.problem, "GANTRY_E_CONFIG");
  if (probe.kind === "unconfirmed") found.warnings.push(`warning: agent ${name}: ${probe.detail}`);
  else found.passed.push(`agent ${name}: ${probe.detail}`);
  for (const c of probe.kind === "ready" ? (probe.checks ?? []) : []) {
    if (c.kind === "warning") found.warnings.push(`warning: agent ${name}: ${c.text}`);
    else found.passed.push(`agent ${name}: ${c.text}`);
  }
}

export async function reporterModules(ctx: PreflightContext, found: Findings): Promise<void> {
  const { config, root } = ctx.input;
  const reporters = ctx.input.reporters ?? { entries: config.reporters, origin: CONFIG_ORIGIN };
  ctx.found.reporters = await resolveReporters(reporters.entries, root, reporters.origin);
  const names = ctx.found.reporters.map((r) => r.name);
  found.passed.push(`reporters: ${names.length > 0 ? names.join(", ") : "none"}`);
}

/** A repository, an identity to commit with, a branch, and (for `validate`) nothing uncommitted. */
export async function gitRepository(ctx: PreflightContext, found: Findings): Promise<void> {
  const { root, checkTree } = ctx.input;
  const git = await openRepo(root).catch((error: unknown) => {
    throw notARepository(root, error) ?? error;
  });
  ctx.found.repository = git.locations;
  try {
    const branch = await commitBranch(git, root);
    if (checkTree) {
      const dirty = await git.dirtyFiles();
      if (dirty.length > 0) throw uncommittedChanges(root, dirty);
    }
    found.passed.push(`git: on branch ${branch}${checkTree ? ", nothing uncommitted" : ""}`);
  } finally {
    git.close();
  }
}

/** `agent.sandbox: "bwrap"` needs a bwrap that works here; the line says what the run will use. */
export async function sandboxMode({ input, env }: PreflightContext, found: Findings): Promise<void> {
  const mode = input.config.agent.sandbox;
  const support = mode === "off" ? undefined : await sandboxSupport(env);
  if (mode === "bwrap" && !support?.works) {
    throw new InputError(
      input.configFile,
      "agent.sandbox",
      `"bwrap" is required, but ${support?.reason ?? "bwrap does not work here"}; install bubblewrap or set "auto" or "off"`,
      "GANTRY_E_CONFIG",
    );
  }
  found.passed.push(await sandboxStatusLine(mode, env));
}

/** With verify a mandatory gate, a story can only pass with a test command. */
export function testCommandSet({ input }: PreflightContext): void {
  if (!input.config.quality.commands.test && mandatoryGates(input.config).includes("verify"))
    throw new InputError(
      input.configFile,
      "quality.commands.test",
      "not set; expected the command that runs the project's tests (verify is a mandatory gate, so no story could pass)",
      "GANTRY_E_CONFIG",
    );
}

/** Each quality command's programs are there to run. */
export function qualityPrograms({ input, lookUp }: PreflightContext, found: Findings): Promise<void> {
  const commands = input.config.quality.commands;
  return checkEach(found, QUALITY_KEYS, async (key) => {
    const command = commands[key];
    if (!command) return;
    const problem = await lookUp(command);
    if (problem)
      throw new InputError(
        input.configFile,
        `quality.commands.${key}`,
        `cannot run: ${problem}`,
        "GANTRY_E_CONFIG",
      );
  });
}

function strictText(hint: { key: string; suggestion: string }): string {
  return `unknown key "${hint.key}"; did you mean "${hint.suggestion}"? (--strict)`;
}
