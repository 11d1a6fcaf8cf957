import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { LedgerEntry, Verdict } from "../pipeline/events.js";
import { LEDGER_FILE } from "./ledger.js";

export const PASSING: ReadonlySet<Verdict> = new Set(["pass", "not-applicable"]);

/** Reads a ledger.jsonl incrementally: each call reads only what was appended since the last. */
export class LedgerReader {
  private offset = 0;
  private partial = "";
  readonly entries: LedgerEntry[] = [];
  /** Lines that did not parse (a torn last line after a crash). */
  readonly skipped: string[] = [];

  constructor(readonly path: string) {}

  refresh(): LedgerEntry[] {
    if (!existsSync(this.path)) return this.entries;
    const size = statSync(this.path).size;
    if (size <= this.offset) return this.entries;
    const fd = openSync(this.path, "r");
    const buffer = Buffer.alloc(size - this.offset);
    try {
      readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset = size;
    const lines = (this.partial + buffer.toString("utf8")).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.take(line);
    return this.entries;
  }

  /** At the end of reading, a last line without its newline is either complete JSON or torn. */
  finish(): LedgerEntry[] {
    this.refresh();
    if (this.partial) this.take(this.partial);
    this.partial = "";
    return this.entries;
  }

  private take(line: string): void {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.skipped.push(line);
      return;
    }
    // JSON that is not an entry (`null`, a hand edit) is skipped too: readers sort on `at` and key on `tree`.
    if (isLedgerEntry(value)) this.entries.push(value);
    else this.skipped.push(line);
  }
}

/** Whether a parsed line has the fields every reader relies on. */
export function isLedgerEntry(value: unknown): value is LedgerEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return ["runId", "storyId", "gate", "verdict", "tree", "at"].every((key) => typeof entry[key] === "string");
}

/** The latest verdict per gate among entries for one tree (and, when given, one story). */
export function latestVerdicts(
  entries: LedgerEntry[],
  tree: string,
  storyId?: string,
): Map<string, LedgerEntry> {
  const latest = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    if (entry.tree !== tree) continue;
    if (storyId !== undefined && entry.storyId !== storyId) continue;
    latest.set(entry.gate, entry);
  }
  return latest;
}

/** Gates among `mandatory` whose latest verdict is missing or not passing, with why. */
export function unmetGates(latest: Map<string, LedgerEntry>, mandatory: string[]): string[] {
  const unmet: string[] = [];
  for (const gate of mandatory) {
    const entry = latest.get(gate);
    if (!entry) unmet.push(`${gate}: no verdict for this tree`);
    else if (!PASSING.has(entry.verdict)) unmet.push(`${gate}: ${entry.verdict}`);
  }
  return unmet;
}

/** Every run's ledger under .gantry/runs, oldest run first. */
export function readAllLedgers(root: string): { entries: LedgerEntry[]; skipped: number } {
  const runs = join(root, ".gantry", "runs");
  if (!existsSync(runs)) return { entries: [], skipped: 0 };
  const entries: LedgerEntry[] = [];
  let skipped = 0;
  for (const dir of readdirSync(runs).sort()) {
    const reader = new LedgerReader(join(runs, dir, LEDGER_FILE));
    entries.push(...reader.finish());
    skipped += reader.skipped.length;
  }
  entries.sort((a, b) => a.at.localeCompare(b.at));
  return { entries, skipped };
}
