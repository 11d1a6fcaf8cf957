import type { LedgerEntry } from "../pipeline/events.js";
import { RUN_SCOPE } from "./ledger.js";
import { PASSING } from "./ledger-reader.js";

/** A story id that stands for the whole run (deferred regression, acceptance). */

/** Where one mandatory gate stands on one tree. */
export interface GateState {
  gate: string;
  /** The latest verdict on this tree is pass or not-applicable. */
  ok: boolean;
  /** The latest verdict for this gate on this tree, from any run and any story. */
  latest?: LedgerEntry;
  /** When there is none: the latest verdict for this gate on some other tree, to say why it does not count. */
  elsewhere?: LedgerEntry;
}

/**
 * The rule `gantry ledger check` applies: for every mandatory gate, the latest verdict on `tree` (entries
 * in the order they were judged, any story, run-level `*` included) must be pass or not-applicable.
 */
export function gateStates(entries: LedgerEntry[], tree: string, mandatory: string[]): GateState[] {
  const onTree = new Map<string, LedgerEntry>();
  const elsewhere = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    if (entry.tree === tree) onTree.set(entry.gate, entry);
    else elsewhere.set(entry.gate, entry);
  }
  return mandatory.map((gate) => {
    const latest = onTree.get(gate);
    if (latest) return { gate, ok: PASSING.has(latest.verdict), latest };
    const other = elsewhere.get(gate);
    return other ? { gate, ok: false, elsewhere: other } : { gate, ok: false };
  });
}

/** `review: fail (run R, story US-2)`, `verify: no verdict for this tree (last: pass on tree 1a2b3c4, …)`. */
export function describeGate(state: GateState): string {
  if (state.latest) return `${state.gate}: ${state.latest.verdict} (${where(state.latest)})`;
  const missing = `${state.gate}: no verdict for this tree`;
  if (!state.elsewhere) return missing;
  const other = state.elsewhere;
  return `${missing} (last: ${other.verdict} on tree ${shortHash(other.tree)}, ${where(other)})`;
}

function where(entry: LedgerEntry): string {
  const story = entry.storyId === RUN_SCOPE ? "run-level" : `story ${entry.storyId}`;
  return `run ${entry.runId}, ${story}`;
}

export function shortHash(hash: string): string {
  return hash.slice(0, 7);
}
