import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { buildPlanPrompt } from "../agents/plan-prompt.js";
import { InputError } from "../config/input-error.js";
import type { Config } from "../config/schema.js";
import { openRepo } from "../git/repo.js";
import { type RepoDigest, repoDigest } from "../git/repo-digest.js";
import { PLAN_ID_PREFIX } from "../ledger/plan-ledgers.js";
import { EXIT } from "../model/exit-codes.js";
import { loadRules, type Rule } from "../plan/rules.js";
import { parsePrd, readPrdRaw } from "../prd/load.js";
import { mergePlan, type PlanMerge } from "../prd/plan-merge.js";
import { readOnlyTree } from "../process/read-only-tree.js";
import { decideSandbox } from "../process/sandbox.js";
import { agentRegistry, createAgent, criticAgent, type TieredAgent } from "./plan-agents.js";
import { critiquePlan } from "./plan-critic.js";
import { finish, judged, type PlanOutput, skippedRecord } from "./plan-outcome.js";
import { PlanRecord } from "./plan-record.js";
import { type PlanSessions, planSession } from "./plan-session.js";
import { newRunId } from "./run-setup.js";
import { sessionHomeOf } from "./session-home-of.js";

export interface PlanOptions extends PlanOutput {
  root: string;
  config: Config;
  spec: string;
  /** `--no-critic`: no critic session, recorded as such. */
  noCritic: boolean;
  signal: AbortSignal;
}

type Doc = Record<string, unknown> & { userStories?: Record<string, unknown>[] };
type ValidPlan = Extract<PlanMerge, { ok: true }>;

/** Tries an agent gets: its first answer, and one more given every error of the first. */
const ANSWERS = 2;

/**
 * `gantry plan`: one session in role `plan` (the tree read-only) writes the feature's stories as JSON to a
 * file gantry names; gantry merges them into prd.json (passed stories untouched) and checks the result as
 * `validate` does. An invalid answer is given back once with all its errors; a second one ends the command
 * with exit 1. With the critic on, one critic round (plan-critic.ts) is judged before anything is written;
 * a block is exit 1. prd.json changes only in one atomic write of a plan that passed.
 */
export async function planFeature(options: PlanOptions): Promise<number> {
  const { root, config } = options;
  const rules = loadRules(root);
  const criticOff = criticSkipped(options, rules);
  const prdBefore = existsSync(options.prdPath) ? readFileSync(options.prdPath) : undefined;
  const existing = prdBefore ? parsedDocument(options.prdPath, options.display) : undefined;
  const registry = await agentRegistry(config, root);
  const top = config.routing.tiers.at(-1) ?? "powerful";
  const planner = { agent: createAgent(registry, config, config.agent.default, "agent.default"), tier: top };
  const critic = criticOff === undefined ? criticAgent(registry, config, top) : undefined;
  const sandbox = await decideSandbox(config.agent.sandbox, root, process.env, sessionHomeOf(config));
  if (sandbox.kind === "unavailable") {
    throw new InputError(
      ".gantry/config.json",
      "agent.sandbox",
      `"bwrap" is required, but ${sandbox.reason}`,
      "GANTRY_E_PLAN",
    );
  }
  if (sandbox.kind === "unsandboxed" && sandbox.warning) options.warn(sandbox.warning);
  const record = new PlanRecord(root, dirname(options.prdPath));
  record.start();
  const sessions: PlanSessions = {
    root,
    feature: options.feature,
    runId: `${PLAN_ID_PREFIX}${newRunId()}`,
    timeoutMs: config.agent.timeoutSeconds * 1000,
    signal: options.signal,
    git: await openRepo(root),
    wrapper: sandbox.kind === "sandboxed" ? readOnlyTree(sandbox.wrapper, resolve(root)) : undefined,
    scratch: mkdtempSync(join(tmpdir(), "gantry-plan-")),
    record,
    prdPath: options.prdPath,
    prdBefore,
  };
  const kept = `gantry: the prompts and answers are in ${relative(process.cwd(), record.dir) || record.dir}`;
  try {
    const proposed = await propose(sessions, planner, existing, options, await repoDigest(root));
    if (typeof proposed === "number") {
      if (proposed !== EXIT.interrupted) options.warn(kept);
      return proposed;
    }
    if (!critic) {
      const skipped = criticOff === "no rules file" ? undefined : criticOff;
      return await finish(
        sessions,
        options,
        proposed,
        [],
        skipped ? skippedRecord(sessions, skipped) : undefined,
      );
    }
    const outcome = await critiquePlan({
      sessions,
      planner,
      critic,
      spec: options.spec,
      rules: rules ?? [],
      proposed,
      display: options.display,
    });
    const code = await judged(sessions, options, proposed, outcome);
    if (code !== EXIT.ok && code !== EXIT.interrupted) options.warn(kept);
    return code;
  } finally {
    sessions.git.close();
    rmSync(sessions.scratch, { recursive: true, force: true });
  }
}

/** The planner's answers until one is valid, at most ANSWERS; an exit code when none is. */
async function propose(
  sessions: PlanSessions,
  planner: TieredAgent,
  existing: Doc | undefined,
  options: PlanOptions,
  digest: RepoDigest,
): Promise<ValidPlan | number> {
  const outputFile = join(sessions.scratch, "stories.json");
  let errors: string[] = [];
  for (let attempt = 1; attempt <= ANSWERS; attempt++) {
    const prompt = buildPlanPrompt({
      feature: options.feature,
      spec: options.spec,
      digest,
      existing: (existing?.userStories ?? []).map((s) => ({
        id: String(s.id),
        title: String(s.title),
        status: String(s.status ?? (s.passes ? "passed" : "pending")),
      })),
      outputFile,
      ...(errors.length > 0 ? { errors } : {}),
    });
    const outcome = await planSession(sessions, {
      ...planner,
      role: "plan",
      name: `plan-${attempt}`,
      attempt,
      prompt,
      outputFile,
    });
    if (outcome.kind === "aborted") return EXIT.interrupted;
    if (outcome.kind === "failed") {
      options.warn(`gantry: ${outcome.reason}`);
      return EXIT.failed;
    }
    const merge: PlanMerge =
      outcome.kind === "unreadable"
        ? { ok: false, errors: [outcome.reason] }
        : mergePlan(existing, outcome.answer, options.feature, options.display);
    if (merge.ok) {
      if (outcome.marker === "none")
        options.warn("gantry: the plan session ended without ## PLANNING COMPLETE");
      return merge;
    }
    errors = merge.errors;
    options.warn(`gantry: plan answer ${attempt} of ${ANSWERS} is not valid (${errors.length} error(s)):`);
    for (const line of errors) options.warn(`  ${line}`);
  }
  options.warn(`gantry: no valid plan after ${ANSWERS} answers; ${options.display} is unchanged`);
  return EXIT.failed;
}

/** Why no critic runs, or undefined when one does: `plan.critic`, default on when a rules file exists. */
function criticSkipped(options: PlanOptions, rules: Rule[] | undefined): string | undefined {
  if (options.noCritic) return "--no-critic";
  const setting = options.config.plan.critic;
  if (setting === "off") return "plan.critic is off";
  if (setting === undefined && rules === undefined) return "no rules file";
  return undefined;
}

function parsedDocument(path: string, display: string): Doc {
  const raw = readPrdRaw(path, display);
  parsePrd(display, raw);
  return raw as Doc;
}
