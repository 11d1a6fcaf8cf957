import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LedgerEntry } from "../model/ledger.js";
import { LEDGER_FILE } from "./entry.js";
import { hasValidMac } from "./mac.js";
import { LedgerReader } from "./reader.js";

export const RUNS_DIR = ".gantry/runs";

/** One run's ledger as read: its entries in file order, and the lines that did not parse. */
export interface RunLedger {
  runId: string;
  /** Relative to the project root, for messages. */
  file: string;
  /** The entries whose MAC this repository's key confirms: the only ones that count as verdicts. */
  entries: LedgerEntry[];
  /** Entries with a missing or wrong MAC (forged, or written with another key), in file order. */
  forged: LedgerEntry[];
  /** Every parsed entry, verified or not, in file order (for the table, which marks the forged). */
  all: LedgerEntry[];
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

/**
 * Reads one run's ledger.jsonl once; a run that judged nothing yet has no entries. Without a key
 * (this machine never wrote a ledger for the repository) no entry can be verified: all are `forged`.
 */
export function readRunLedger(root: string, runId: string, key: Buffer | undefined): RunLedger {
  return readLedgerFile(root, `${RUNS_DIR}/${runId}/${LEDGER_FILE}`, runId, key);
}

/** One ledger file (`file` relative to the root), its lines split into verified and not by `key`. */
export function readLedgerFile(
  root: string,
  file: string,
  runId: string,
  key: Buffer | undefined,
): RunLedger {
  const reader = new LedgerReader(join(root, file));
  const entries: LedgerEntry[] = [];
  const forged: LedgerEntry[] = [];
  const all = reader.finish();
  for (const entry of all) {
    if (key !== undefined && hasValidMac(entry, key)) entries.push(entry);
    else forged.push(entry);
  }
  return { runId, file, entries, forged, all, skipped: reader.skipped.length };
}

/** Every run's ledger, oldest run first. */
export function readRunLedgers(root: string, key: Buffer | undefined): RunLedger[] {
  return listRuns(root).map((runId) => readRunLedger(root, runId, key));
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

/** One stderr line per ledger with lines whose MAC is missing or wrong; they count as no verdict. */
export function forgedNotes(ledgers: RunLedger[]): string[] {
  return ledgers
    .filter((ledger) => ledger.forged.length > 0)
    .map((ledger) => {
      const n = ledger.forged.length;
      const lines = n === 1 ? "1 line" : `${n} lines`;
      return `gantry: ${lines} in ${ledger.file} ${n === 1 ? "has" : "have"} no valid MAC (forged or written by another key); ignored`;
    });
}
