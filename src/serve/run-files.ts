import { existsSync } from "node:fs";
import { join } from "node:path";
import { listRuns, RUNS_DIR } from "../ledger/runs.js";
import { processAlive } from "../process/process-group.js";
import { type RunStateData, readRunState } from "../runs/run-state.js";

export const EVENTS_LOG = "events.jsonl";
/** Events that end a run's walk: nothing follows them but the run's exit. */
export const RUN_ENDS = new Set(["run:complete", "run:error", "run:pause"]);

export interface RunFiles {
  runId: string;
  dir: string;
  /** state.json as last written, when it could be read. */
  state: RunStateData | undefined;
  feature: string | undefined;
  /** The state says running and its process is alive. */
  live: boolean;
}

export const runDir = (root: string, runId: string) => join(root, RUNS_DIR, runId);

export function readRunFiles(root: string, runId: string): RunFiles {
  const dir = runDir(root, runId);
  const state = readRunState(dir);
  const live = state?.status === "running" && processAlive(state.pid);
  return { runId, dir, state, feature: state?.feature, live };
}

/** Every run under .gantry/runs, oldest first, optionally of one feature only. */
export function listRunFiles(root: string, feature?: string): RunFiles[] {
  return listRuns(root)
    .map((runId) => readRunFiles(root, runId))
    .filter((run) => feature === undefined || run.feature === feature);
}

/** A run id as the user may give it: a directory name under .gantry/runs, nothing else. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export function runExists(root: string, runId: string): boolean {
  return RUN_ID_PATTERN.test(runId) && existsSync(runDir(root, runId));
}
