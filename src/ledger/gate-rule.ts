import type { LedgerEntry, Verdict } from "../model/ledger.js";
import { RUN_SCOPE } from "./entry.js";

/** The verdicts that let a mandatory gate count as passed. */
export const PASSING: ReadonlySet<Verdict> = new Set(["pass", "not-applicable"]);

/** Where one mandatory gate stands on one tree. */
export interface GateState {
  gate: string;
  /** The latest verdict on this tree is pass or not-applicable. */
  ok: boolean;
  /** The latest verdict for this gate on this tree. */
  latest?: LedgerEntry;
  /** When there is none: the latest verdict for this gate on some other tree, to say why it does not count. */
  elsewhere?: LedgerEntry;
}

/**
 * The one rule for "every mandatory gate passed", applied by completion (one story's verdicts, from
 * memory) and by `gantry ledger check` (every story and run-level verdict, from the ledgers): for each
 * mandatory gate, the latest verdict on `tree`, in the order judged, must be pass or not-applicable.
 */
export function gateStates(
  entries: readonly LedgerEntry[],
  tree: string,
  mandatory: readonly string[],
  scope: { storyId?: string } = {},
): GateState[] {
  const onTree = new Map<string, LedgerEntry>();
  const elsewhere = new Map<string, LedgerEntry>();
  for (const entry of entries) {
    if (scope.storyId !== undefined && entry.storyId !== scope.storyId) continue;
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

/** The gates of `states` that are not met, each described: empty when every mandatory gate passed. */
export function unmetGates(states: readonly GateState[]): string[] {
  return states.filter((state) => !state.ok).map(describeGate);
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
