import { mkdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { AgentRegistry } from "../agents/registry.js";
import { createEventBus } from "../bus/event-bus.js";
import { InputError } from "../config/input-error.js";
import { type Config, DEFAULT_TRIGGER_TIMEOUT_SECONDS, mandatoryGates } from "../config/schema.js";
import type { GitRepo } from "../git/git-repo.js";
import { openRepo, type RepoLocations } from "../git/repo.js";
import { VerdictBook } from "../ledger/book.js";
import { ledgerKey } from "../ledger/key.js";
import type { RunControl } from "../model/run-control.js";
import { loadPlugins } from "../plugins/loader.js";
import { registerPluginAgents } from "../plugins/registry.js";
import type { PluginSet } from "../plugins/types.js";
import type { Prd } from "../prd/story.js";
import { StoryStore } from "../prd/story-store.js";
import { RUN_ID_VARIABLE } from "../process/leftovers.js";
import { decideSandbox } from "../process/sandbox.js";
import { RunState } from "../runs/run-state.js";
import type { RunContext, RunRequests } from "../stages/context.js";
import { createRunLogger } from "../subscribers/run-log.js";
import { createRedactor } from "../util/redact.js";
import { secretValues } from "../util/secrets.js";
import { sessionHomeOf } from "./session-home-of.js";

export interface RunSetup {
  root: string;
  feature: string;
  prdPath: string;
  prd: Prd;
  config: Config;
  signal: AbortSignal;
  /** Where warnings about subscribers go besides the log (stderr). */
  warn: (line: string) => void;
  /** Plugins already loaded (by the pre-flight); loaded here when absent. */
  plugins?: PluginSet;
  /** Where the repository is, when the pre-flight found it already. */
  repository?: RepoLocations;
  /** The repository as the run's start check opened (and judged) it; opened here when absent. */
  git?: GitRepo;
}

export function newRunId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Builds the run's shared context: run directory, log, bus, git, agent, PRD store, ledger reader, state. */
export async function createRunContext(
  setup: RunSetup,
): Promise<{ run: RunContext; control: RunControl; close: () => void }> {
  const { root, config, feature } = setup;
  const plugins = setup.plugins ?? (await loadPlugins(config, root));
  const registry = new AgentRegistry();
  registerPluginAgents(registry, plugins);
  if (!registry.names().includes(config.agent.default)) {
    throw new InputError(
      ".gantry/config.json",
      "agent.default",
      `unknown agent "${config.agent.default}"; expected one of ${registry.names().join(", ")}`,
      "GANTRY_E_CONFIG",
    );
  }
  config.review.panel.forEach((reviewer, index) => {
    if ("agent" in reviewer && !registry.names().includes(reviewer.agent)) {
      throw new InputError(
        ".gantry/config.json",
        `review.panel[${index}].agent`,
        `unknown agent "${reviewer.agent}"; expected one of ${registry.names().join(", ")}`,
        "GANTRY_E_CONFIG",
      );
    }
  });
  const agent = registry.create(config.agent.default, config);
  const sandbox = await decideSandbox(config.agent.sandbox, root, process.env, sessionHomeOf(config));
  if (sandbox.kind === "unavailable") {
    throw new InputError(
      ".gantry/config.json",
      "agent.sandbox",
      `"bwrap" is required, but ${sandbox.reason}; install bubblewrap or set "auto" or "off"`,
      "GANTRY_E_CONFIG",
    );
  }
  const git = setup.git ?? (await openRepo(root, setup.repository));
  const runId = newRunId();
  // Inherited by every process the run starts, so leftovers can be found and stopped (leftovers.ts).
  process.env[RUN_ID_VARIABLE] = runId;
  const runDir = join(root, ".gantry", "runs", runId);
  mkdirSync(runDir, { recursive: true });
  const redact = createRedactor(secretValues(process.env, config.quality.stripEnv));
  const logger = await createRunLogger(runDir, runId, redact.text);
  if (sandbox.kind === "unsandboxed" && sandbox.warning) {
    logger.warn({ sandbox: config.agent.sandbox }, sandbox.warning);
    setup.warn(sandbox.warning);
  }
  if (sandbox.kind === "sandboxed") {
    logger.info({ sandbox: sandbox.wrapper }, "agent sessions run under bwrap");
    if (sandbox.judgingWarning) {
      logger.warn({ sandbox: config.agent.sandbox }, sandbox.judgingWarning);
      setup.warn(sandbox.judgingWarning);
    } else
      logger.info({ judging: sandbox.judging }, "judging commands run under bwrap over a throw-away layer");
  }
  const bus = createEventBus({
    runId,
    flushTimeoutMs: flushTimeout(config),
    ...(redact.empty ? {} : { redact: redact.deep }),
    onFault: ({ subscriber, event, error }) => {
      const message = error instanceof Error ? error.message : String(error);
      logger.warn({ subscriber, event, err: error }, "subscriber failed");
      setup.warn(`gantry: subscriber "${subscriber}" failed on ${event}: ${message}`);
    },
  });
  const requests: RunRequests = { vetoes: new Map(), decisions: [] };
  const control: RunControl = {
    vetoStory: (storyId, reason) => requests.vetoes.set(storyId, reason),
    requestPause: (reason) => {
      requests.pauseReason ??= reason;
    },
    decide: (storyId, trigger, action) => {
      requests.decisions.push({ storyId, trigger, action });
      if (action === "abort") requests.pauseReason ??= `interaction ${trigger} answered abort`;
    },
    // The run's own config object: agent sessions read the limit from it before they start.
    raiseCostLimit: (usd) => {
      config.execution.costLimitUsd += usd;
      return config.execution.costLimitUsd;
    },
    signal: setup.signal,
  };
  const run: RunContext = {
    runId,
    feature,
    root,
    runDir,
    config,
    mandatoryGates: mandatoryGates(config),
    bus,
    git,
    agent,
    stories: new StoryStore(setup.prdPath, setup.prd, (changes) => {
      const file = relative(root, setup.prdPath);
      logger.warn(
        { file, changes },
        "prd.json edited during the run by something other than gantry; restored",
      );
      for (const change of changes) {
        setup.warn(`gantry: ${file}: ${change} (during a run only gantry writes it)`);
      }
    }),
    verdicts: new VerdictBook(feature, ledgerKey(root).key),
    logger,
    control,
    signal: setup.signal,
    cost: { usd: 0, sessions: 0, byBasis: { exact: 0, estimated: 0, unknown: 0 } },
    state: new RunState(runDir, { runId, feature }),
    requests,
    plugins,
    redact,
    ...(sandbox.kind === "sandboxed" ? { sandbox: sandbox.wrapper } : {}),
    ...(sandbox.kind === "sandboxed" && sandbox.session ? { sessionHome: sandbox.session } : {}),
    ...(sandbox.kind === "sandboxed" && sandbox.judging
      ? { judging: { programs: sandbox.judging, repository: root } }
      : {}),
  };
  const close = () => {
    logger.flush();
    // The sessions' scratch home: caches only; the agent CLI's own state was bound in from the real home.
    if (sandbox.kind === "sandboxed" && sandbox.session)
      rmSync(sandbox.session.scratch, { recursive: true, force: true });
  };
  return { run, control, close };
}

/**
 * Long enough for the slowest configured hook (a vetoing on-story-start must be heard) and the longest
 * interaction wait (an answer must be in before the run acts), at least 30 s.
 */
function flushTimeout(config: Config): number {
  let longest = 10_000;
  for (const entries of Object.values(config.hooks)) {
    for (const entry of Array.isArray(entries) ? entries : [entries]) {
      if (typeof entry === "object" && entry.timeoutMs) longest = Math.max(longest, entry.timeoutMs);
    }
  }
  for (const trigger of Object.values(config.interaction.triggers)) {
    if (!trigger?.enabled) continue;
    const seconds = trigger.timeoutSeconds ?? DEFAULT_TRIGGER_TIMEOUT_SECONDS;
    longest = Math.max(longest, seconds * 1000);
  }
  return Math.max(30_000, longest + 5_000);
}
