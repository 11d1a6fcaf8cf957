import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LedgerEntry } from "../model/ledger.js";
import { LEDGER_FILE } from "./entry.js";
import { type RunLedger, readLedgerFile } from "./runs.js";

/** Where `gantry plan` keeps its record and its ledger: `.gantry/features/<F>/plan/`. */
export const PLAN_RECORD_DIR = "plan";
const FEATURES_DIR = ".gantry/features";

/** A plan's id starts `plan-` and then is a run id (its UTC start time first). */
export const PLAN_ID_PREFIX = "plan-";

/**
 * Every feature's plan ledger (`.gantry/features/<F>/plan/ledger.jsonl`, one `plan-critique` line per plan),
 * read as a run's is: only lines whose MAC `key` confirms count. One ledger per feature, by feature name.
 */
export function readPlanLedgers(root: string, key: Buffer | undefined): RunLedger[] {
  const dir = join(root, FEATURES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, PLAN_RECORD_DIR, LEDGER_FILE)))
    .map((d) => d.name)
    .sort()
    .map((feature) =>
      readLedgerFile(root, `${FEATURES_DIR}/${feature}/${PLAN_RECORD_DIR}/${LEDGER_FILE}`, feature, key),
    );
}

/** Each plan in the plan ledgers as a ledger of its own, named by its id (`plan-…`), for `gantry ledger`. */
export function planRuns(ledgers: readonly RunLedger[]): RunLedger[] {
  const plans = new Map<string, RunLedger>();
  for (const ledger of ledgers) {
    const verified = new Set<LedgerEntry>(ledger.entries);
    for (const entry of ledger.all) {
      const id = String(entry.runId);
      let plan = plans.get(id);
      if (!plan) {
        plan = { runId: id, file: ledger.file, entries: [], forged: [], all: [], skipped: ledger.skipped };
        plans.set(id, plan);
      }
      plan.all.push(entry);
      (verified.has(entry) ? plan.entries : plan.forged).push(entry);
    }
  }
  return [...plans.values()];
}

/** Run and plan ids in the order they started: a plan's id sorts by the run id after its prefix. */
export function byStart(ids: readonly string[]): string[] {
  const started = (id: string) => (id.startsWith(PLAN_ID_PREFIX) ? id.slice(PLAN_ID_PREFIX.length) : id);
  return [...ids].sort((a, b) => started(a).localeCompare(started(b)) || a.localeCompare(b));
}

/** The newest verified `plan-critique` verdict of a feature's plans. */
export interface PlanVerdict {
  feature: string;
  verdict: string;
  runId: string;
  at: string;
  tree: string;
}

/** Each feature's newest verified plan verdict (only `feature`'s when given), by feature name. */
export function latestPlanVerdicts(ledgers: readonly RunLedger[], feature?: string): PlanVerdict[] {
  return ledgers.flatMap((ledger) => {
    const newest = ledger.entries
      .filter((e) => e.gate === "plan-critique" && (feature === undefined || e.feature === feature))
      .reduce<LedgerEntry | undefined>(
        (last, e) => (last === undefined || e.at >= last.at ? e : last),
        undefined,
      );
    if (!newest) return [];
    const { verdict, runId, at, tree } = newest;
    return [{ feature: newest.feature, verdict, runId, at, tree }];
  });
}

/** `plan of feature f: plan-critique pass (plan-20250301-091500-k3f9)`. */
export function describePlan(plan: PlanVerdict): string {
  return `plan of feature ${plan.feature}: plan-critique ${plan.verdict} (${plan.runId}, not a mandatory gate)`;
}
