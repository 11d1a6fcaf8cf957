import type { EventBus } from "../bus/event-bus.js";
import type { EventOf, EventPayloads } from "../model/events.js";
import type { LedgerEntry, Verdict } from "../model/ledger.js";
import type { VerdictBook } from "./book.js";
import { GATE_OF_STRATEGY, VERDICT_OF_STATUS } from "./entry.js";
import { signEntry } from "./mac.js";

/** The events that carry a gate's result: each is recorded as one ledger entry. */
export type GateResult =
  | "verify:result"
  | "review:result"
  | "test-strength:result"
  | "tamper:result"
  | "test-integrity:result"
  | "readiness:result"
  | "review-decision:result"
  | "story-check:result";

/** What recording a verdict needs of a run: its bus and its book of verdicts. */
export interface VerdictSink {
  bus: EventBus;
  verdicts: VerdictBook;
}

/**
 * Records a gate's result where it was judged: announces the result, builds its ledger entry (gate, verdict,
 * the judged tree, the evidence), signs it, adds it to the run's book and announces it as `gate:verdict`
 * (the ledger subscriber appends that to ledger.jsonl). Returns the entry: the caller has its verdict
 * without reading it back.
 */
export function recordVerdict<K extends GateResult>(
  run: VerdictSink,
  type: K,
  payload: EventPayloads[K],
): LedgerEntry {
  const event = run.bus.emit(type, payload);
  const [gate, verdict, detail] = judged(type, event);
  const entry = run.verdicts.add(
    signEntry(
      {
        v: 1,
        runId: event.runId,
        feature: run.verdicts.feature,
        storyId: event.storyId,
        gate,
        verdict,
        sha: event.judged.sha,
        tree: event.judged.tree,
        at: event.at,
        attempt: event.attempt,
        detail,
      },
      run.verdicts.key,
    ),
  );
  run.bus.emit("gate:verdict", entry);
  return entry;
}

type Judgement = [gate: string, verdict: Verdict, detail: Record<string, unknown>];

/** A result's gate, verdict and the evidence kept with it. */
function judged<K extends GateResult>(type: K, result: EventOf<K>): Judgement {
  const of = JUDGE[type] as (event: EventOf<K>) => Judgement;
  return of(result);
}

const JUDGE: { [K in GateResult]: (event: EventOf<K>) => Judgement } = {
  "verify:result": (event) => [
    GATE_OF_STRATEGY[event.strategy],
    VERDICT_OF_STATUS[event.status],
    {
      status: event.status,
      runner: event.runner,
      passCount: event.passCount,
      failCount: event.failCount,
      skipCount: event.skipCount,
      command: event.command,
      exitCode: event.exitCode,
      ...(event.reason ? { reason: event.reason } : {}),
      ...(event.scope ? { scope: event.scope } : {}),
      ...(event.outputHead ? { outputHead: event.outputHead } : {}),
    },
  ],
  "review:result": (event) => [
    "review",
    event.checks.length === 0 ? "not-applicable" : event.success ? "pass" : "fail",
    { checks: event.checks.map((c) => ({ name: c.name, success: c.success, exitCode: c.exitCode })) },
  ],
  "test-strength:result": (event) => [
    "test-strength",
    event.verdict,
    { files: event.files, ...(event.reason ? { reason: event.reason } : {}) },
  ],
  "tamper:result": (event) => ["tamper", event.verdict, { role: event.role, changes: event.changes }],
  "test-integrity:result": (event) => [
    "test-integrity",
    event.verdict,
    {
      findings: event.findings,
      ...(event.allowed.length > 0 ? { allowed: event.allowed } : {}),
      ...(event.reason ? { reason: event.reason } : {}),
    },
  ],
  "readiness:result": (event) => [
    "readiness",
    event.verdict,
    {
      gaps: event.gaps.map((g) => ({ code: g.code, severity: g.severity, detail: g.detail })),
      ...(event.accepted.length > 0 ? { accepted: event.accepted } : {}),
      ...(event.gapSet.length > 0 ? { gapSet: event.gapSet } : {}),
      ...(event.findings ? { findings: event.findings } : {}),
      ...(event.carriedFrom ? { carriedFrom: event.carriedFrom } : {}),
    },
  ],
  "review-decision:result": (event) => [
    "review-decision",
    event.verdict,
    { reason: event.reason, blockers: event.blockers, lowered: event.lowered, reviewers: event.reviewers },
  ],
  "story-check:result": (event) => [
    "story-check",
    event.verdict,
    { phase: event.phase, checks: event.checks.map(({ output: _output, ...check }) => check) },
  ],
};
