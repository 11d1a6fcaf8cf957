import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { EventBus } from "../bus/event-bus.js";
import type { VerdictBook } from "../ledger/book.js";
import { GATE_OF_STRATEGY, LEDGER_FILE, VERDICT_OF_STATUS } from "../ledger/entry.js";
import { signEntry } from "../ledger/mac.js";
import type { EventOf } from "../model/events.js";
import type { LedgerEntry, Verdict } from "../model/ledger.js";

/**
 * Appends every gate verdict to ledger.jsonl as it is judged, keeps it in the run's VerdictBook (what
 * completion decides from), then announces it as `gate:verdict`.
 * Lines are written with one synchronous write each, so a crash leaves at worst one torn last line.
 * Each line carries `mac`, an HMAC with the repository's key kept outside the tree (src/ledger/key.ts):
 * `gantry ledger check` counts no line without it.
 */
export function wireLedger(
  bus: EventBus,
  options: { runDir: string; feature: string; verdicts: VerdictBook; key: Buffer },
): () => void {
  const fd = openSync(join(options.runDir, LEDGER_FILE), "a");
  const append = (unsigned: LedgerEntry) => {
    const entry = signEntry(unsigned, options.key);
    writeSync(fd, `${JSON.stringify(entry)}\n`);
    options.verdicts.add(entry);
    bus.emit("gate:verdict", entry);
  };
  const entry = (
    event:
      | EventOf<"verify:result">
      | EventOf<"review:result">
      | EventOf<"test-strength:result">
      | EventOf<"tamper:result">
      | EventOf<"test-integrity:result">
      | EventOf<"readiness:result">
      | EventOf<"review-decision:result">
      | EventOf<"story-check:result">,
    gate: string,
    verdict: Verdict,
    detail: Record<string, unknown>,
  ): LedgerEntry => ({
    v: 1,
    runId: event.runId,
    feature: options.feature,
    storyId: event.storyId,
    gate,
    verdict,
    sha: event.judged.sha,
    tree: event.judged.tree,
    at: event.at,
    attempt: event.attempt,
    detail,
  });

  const offVerify = bus.on("verify:result", "ledger", (event) => {
    append(
      entry(event, GATE_OF_STRATEGY[event.strategy], VERDICT_OF_STATUS[event.status], {
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
      }),
    );
  });
  const offReview = bus.on("review:result", "ledger", (event) => {
    const verdict: Verdict = event.checks.length === 0 ? "not-applicable" : event.success ? "pass" : "fail";
    append(
      entry(event, "review", verdict, {
        checks: event.checks.map((c) => ({ name: c.name, success: c.success, exitCode: c.exitCode })),
      }),
    );
  });
  const offStrength = bus.on("test-strength:result", "ledger", (event) => {
    append(
      entry(event, "test-strength", event.verdict, {
        files: event.files,
        ...(event.reason ? { reason: event.reason } : {}),
      }),
    );
  });
  const offTamper = bus.on("tamper:result", "ledger", (event) => {
    append(entry(event, "tamper", event.verdict, { role: event.role, changes: event.changes }));
  });
  const offIntegrity = bus.on("test-integrity:result", "ledger", (event) => {
    append(
      entry(event, "test-integrity", event.verdict, {
        findings: event.findings,
        ...(event.allowed.length > 0 ? { allowed: event.allowed } : {}),
        ...(event.reason ? { reason: event.reason } : {}),
      }),
    );
  });
  const offReadiness = bus.on("readiness:result", "ledger", (event) => {
    append(
      entry(event, "readiness", event.verdict, {
        gaps: event.gaps.map((g) => ({ code: g.code, severity: g.severity, detail: g.detail })),
        ...(event.accepted.length > 0 ? { accepted: event.accepted } : {}),
        ...(event.gapSet.length > 0 ? { gapSet: event.gapSet } : {}),
        ...(event.findings ? { findings: event.findings } : {}),
        ...(event.carriedFrom ? { carriedFrom: event.carriedFrom } : {}),
      }),
    );
  });
  const offDecision = bus.on("review-decision:result", "ledger", (event) => {
    append(
      entry(event, "review-decision", event.verdict, {
        reason: event.reason,
        blockers: event.blockers,
        lowered: event.lowered,
        reviewers: event.reviewers,
      }),
    );
  });
  const offStoryCheck = bus.on("story-check:result", "ledger", (event) => {
    append(
      entry(event, "story-check", event.verdict, {
        phase: event.phase,
        checks: event.checks.map(({ output: _output, ...check }) => check),
      }),
    );
  });
  return () => {
    offReadiness();
    offStoryCheck();
    offDecision();
    offTamper();
    offVerify();
    offIntegrity();
    offReview();
    offStrength();
    closeSync(fd);
  };
}
