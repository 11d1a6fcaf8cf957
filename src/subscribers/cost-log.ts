import { closeSync, existsSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import type { CostBasis } from "../model/agent.js";

export const COST_FILE = "cost.jsonl";

/** One agent session's cost, a line of `.gantry/runs/<runId>/cost.jsonl`. */
export interface CostEntry {
  at: string;
  story: string;
  role: string;
  agent: string;
  model: string;
  tier: string;
  tokens: { input: number; output: number } | null;
  costUsd: number;
  basis: CostBasis;
  exitCode: number | null;
  durationMs: number;
}

/** How much of a total is known: every session exact, a mix, every one estimated, or not known at all. */
export type TotalCostBasis = "exact" | "partial" | "estimated" | "unknown";

/** Appends every `agent:end` to cost.jsonl as it happens (written before the next event goes out). */
export function wireCostLog(bus: EventBus, options: { runDir: string }): () => void {
  const fd = openSync(join(options.runDir, COST_FILE), "a");
  const off = bus.on("agent:end", "cost-log", (e) => {
    const entry: CostEntry = {
      at: e.at,
      story: e.storyId,
      role: e.role,
      agent: e.agent,
      model: e.model,
      tier: e.tier,
      tokens: e.tokens ?? null,
      costUsd: e.costUsd,
      basis: e.costBasis,
      exitCode: e.exitCode,
      durationMs: e.durationMs,
    };
    writeSync(fd, `${JSON.stringify(entry)}\n`);
  });
  return () => {
    off();
    closeSync(fd);
  };
}

/**
 * A total's basis from its sessions' bases: `exact` only when every session was (or there were none),
 * `estimated` when none was exact and all were estimated, `unknown` when none was exact or estimated,
 * `partial` for any mix.
 */
export function totalCostBasis(counts: Record<CostBasis, number>): TotalCostBasis {
  const { exact, estimated, unknown } = counts;
  if (estimated === 0 && unknown === 0) return "exact";
  if (exact === 0 && unknown === 0) return "estimated";
  if (exact === 0 && estimated === 0) return "unknown";
  return "partial";
}

export interface CostSummary {
  usd: number;
  sessions: number;
  byBasis: Record<CostBasis, number>;
  basis: TotalCostBasis;
  tokens: { input: number; output: number };
}

/** Totals of a run's cost.jsonl; a torn or foreign line is skipped. A missing file is no sessions. */
export function summarizeCostLog(runDir: string): CostSummary {
  const path = join(runDir, COST_FILE);
  const byBasis: Record<CostBasis, number> = { exact: 0, estimated: 0, unknown: 0 };
  const summary = { usd: 0, sessions: 0, tokens: { input: 0, output: 0 } };
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  for (const line of text.split("\n")) {
    let entry: Partial<CostEntry>;
    try {
      entry = JSON.parse(line) as Partial<CostEntry>;
    } catch {
      continue;
    }
    if (typeof entry.costUsd !== "number" || !entry.basis || !(entry.basis in byBasis)) continue;
    summary.sessions += 1;
    summary.usd += entry.costUsd;
    byBasis[entry.basis] += 1;
    summary.tokens.input += entry.tokens?.input ?? 0;
    summary.tokens.output += entry.tokens?.output ?? 0;
  }
  return { ...summary, byBasis, basis: totalCostBasis(byBasis) };
}
