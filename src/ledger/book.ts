import type { LedgerEntry } from "../model/ledger.js";

/**
 * The verdicts this run judged, held in memory as they are recorded (src/ledger/record.ts). Completion
 * decides from here, never by re-reading ledger.jsonl: the agent can write files in the tree, not gantry's
 * memory. The book knows the run's feature and the repository's ledger key, which every entry is signed with.
 */
export class VerdictBook {
  readonly #entries: LedgerEntry[] = [];

  constructor(
    readonly feature: string,
    readonly key: Buffer,
  ) {}

  add(entry: LedgerEntry): LedgerEntry {
    const kept = Object.freeze({ ...entry });
    this.#entries.push(kept);
    return kept;
  }

  get entries(): readonly LedgerEntry[] {
    return this.#entries;
  }
}
