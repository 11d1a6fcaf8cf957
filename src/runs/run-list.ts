import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "../process/process-group.js";
import { type RunStateData, readRunState } from "./run-state.js";

/** One run as `gantry runs` lists it. */
export interface RunListing {
  runId: string;
  feature: string;
  startedAt: string;
  /** From state.json; `running` whose process is gone reads `killed`. */
  status: RunStateData["status"] | "killed";
  passed: number;
  failed: number;
  /** Stories that did not run: a dependency failed, or skipped (by a person, a trigger or readiness). */
  blocked: number;
  skipped: number;
  costUsd: number;
  /** The run directory, relative to the project root. */
  dir: string;
}

/**
 * Every run under `.gantry/runs/` with a readable state file, oldest first: its state, and from its events how
 * many stories passed and failed and what it cost (the `run:complete` summary, or the story and agent events of
 * a run that never got that far). These are records for reading, not verdicts: nothing decides from them.
 */
export function listRunRecords(root: string, feature?: string): RunListing[] {
  const runs = join(root, ".gantry", "runs");
  if (!existsSync(runs)) return [];
  const out: RunListing[] = [];
  for (const name of readdirSync(runs).sort()) {
    const state = readRunState(join(runs, name));
    if (!state || (feature !== undefined && state.feature !== feature)) continue;
    out.push({
      runId: state.runId,
      feature: state.feature,
      startedAt: state.startedAt,
      status: state.status === "running" && !processAlive(state.pid) ? "killed" : state.status,
      ...tally(join(runs, name, "events.jsonl")),
      dir: join(".gantry", "runs", name),
    });
  }
  return out;
}

type Tally = Pick<RunListing, "passed" | "failed" | "blocked" | "skipped" | "costUsd">;

function tally(file: string): Tally {
  const counts: Tally = { passed: 0, failed: 0, blocked: 0, skipped: 0, costUsd: 0 };
  if (!existsSync(file)) return counts;
  // Each story's last end: with --parallel a story passes in its worktree, may fail to merge and run again.
  const ends = new Map<string, "passed" | "failed" | "blocked" | "skipped">();
  const idOf = (event: Record<string, unknown>) =>
    String(((event.story ?? {}) as Record<string, unknown>).id ?? event.storyId ?? "");
  for (const line of readFileSync(file, "utf8").split("\n")) {
    // Only the few event types counted here are parsed; a torn last line is skipped.
    const type = /^\{"type":"([a-z:-]+)"/.exec(line)?.[1];
    if (!COUNTED.has(type ?? "")) continue;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (type === "story:complete") {
      if (event.inWorktree !== true) ends.set(idOf(event), "passed");
    } else if (type === "story:merge") {
      if (event.outcome === "merged") ends.set(idOf(event), "passed");
    } else if (type === "story:fail") ends.set(idOf(event), "failed");
    else if (type === "story:skip") {
      const status = ((event.story ?? {}) as Record<string, unknown>).status;
      ends.set(idOf(event), status === "blocked" ? "blocked" : "skipped");
    } else if (type === "agent:end") counts.costUsd += number(event.costUsd);
    else {
      const summary = (event.summary ?? {}) as Record<string, unknown>;
      return {
        passed: number(summary.passed),
        failed: number(summary.failed),
        blocked: number(summary.blocked),
        skipped: number(summary.skipped),
        costUsd: number(summary.costUsd),
      };
    }
  }
  for (const end of ends.values()) counts[end] += 1;
  return counts;
}

const COUNTED = new Set([
  "story:complete",
  "story:merge",
  "story:fail",
  "story:skip",
  "agent:end",
  "run:complete",
]);

const number = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);
