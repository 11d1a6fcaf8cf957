import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LedgerEntry } from "../model/ledger.js";
import { LEDGER_FILE } from "./entry.js";
import { LedgerReader } from "./reader.js";

export const RUNS_DIR = ".gantry/runs";

/** One run's ledger as read: its entries in file order, and the lines that did not parse. */
export interface RunLedger {
  runId: string;
  /** Relative to the project root, for messages. */
  file: string;
  entries: LedgerEntry[];
  skipped: number;
}

/** The run ids under .gantry/runs, oldest first (a run id starts with its UTC start time). */
export function listRuns(root: string): string[] {
  const runs = join(root, RUNS_DIR);
  if (!existsSync(runs)) return [];
  return readdirSync(runs, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Reads one run's ledger.jsonl once; a run that judged nothing yet has no entries. */
export function readRunLedger(root: string, runId: string): RunLedger {
  const file = `${RUNS_DIR}/${runId}/${LEDGER_FILE}`;
  const reader = new LedgerReader(join(root, file));
  const entries = reader.finish();
  return { runId, file, entries, skipped: reader.skipped.length };
}

/** Every run's ledger, oldest run first. */
export function readRunLedgers(root: string): RunLedger[] {
  return listRuns(root).map((runId) => readRunLedger(root, runId));
}

/** All entries of the given ledgers in the order they were judged (by `at`; ties keep file order). */
export function byTime(ledgers: RunLedger[]): LedgerEntry[] {
  return ledgers.flatMap((ledger) => ledger.entries).sort((a, b) => a.at.localeCompare(b.at));
}

/** One stderr line per ledger with torn or unreadable lines; readers skip them rather than fail. */
export function skippedNotes(ledgers: RunLedger[]): string[] {
  return ledgers
    .filter((ledger) => ledger.skipped > 0)
    .map(
      (ledger) =>
        `gantry: skipped ${ledger.skipped} torn or unreadable line${ledger.skipped === 1 ? "" : "s"} in ${ledger.file}`,
    );
}
