import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import type { LedgerEntry } from "../model/ledger.js";
import { isLedgerEntry } from "./entry.js";

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
