import type { LedgerEntry } from "../model/ledger.js";

/**
 * The verdicts this run judged, held in memory as the ledger subscriber writes them. Completion decides
 * from here, never by re-reading ledger.jsonl: the agent can write files in the tree, not gantry's memory.
 */
export class VerdictBook {
  readonly #entries: LedgerEntry[] = [];

  add(entry: LedgerEntry): void {
    this.#entries.push(Object.freeze({ ...entry }));
  }

  get entries(): readonly LedgerEntry[] {
    return this.#entries;
  }
}
