import type { LedgerEntry, Verdict } from "../../src/model/ledger.js";

let clock = Date.parse("2025-03-01T09:00:00.000Z");

/** A ledger entry judged now (each one a second after the last, so "latest" is well defined). */
export function entry(
  judged: { sha: string; tree: string },
  runId: string,
  gate: string,
  verdict: Verdict,
  more: Partial<LedgerEntry> = {},
): LedgerEntry {
  clock += 1000;
  return {
    v: 1,
    runId,
    feature: "checkout",
    storyId: "US-001",
    gate,
    verdict,
    sha: judged.sha,
    tree: judged.tree,
    at: new Date(clock).toISOString(),
    attempt: 1,
    detail: {},
    ...more,
  };
}
