import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { VerdictBook } from "../../src/ledger/book.js";
import { hasValidMac } from "../../src/ledger/mac.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import { wireLedger } from "../../src/subscribers/ledger.js";

describe("the ledger's readiness lines", () => {
  it("writes a signed readiness verdict with the gaps, the gap set and the codes a continue accepted", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "gantry-ledger-readiness-"));
    const bus = createEventBus({ runId: "run-1" });
    const verdicts = new VerdictBook();
    const key = randomBytes(32);
    const off = wireLedger(bus, { runDir, feature: "f", verdicts, key });
    const gap = { code: "no-acceptance-criteria" as const, severity: "blocker" as const, detail: "none" };
    const base = { storyId: "US-1", gaps: [gap], judged: { sha: "s", tree: "t" }, attempt: 0 };
    bus.emit("readiness:result", {
      ...base,
      verdict: "fail",
      accepted: [],
      gapSet: ["no-acceptance-criteria"],
      ask: true,
    });
    bus.emit("readiness:result", {
      ...base,
      verdict: "pass",
      accepted: ["no-acceptance-criteria"],
      gapSet: [],
    });
    await bus.flush();
    off();
    const lines = readFileSync(join(runDir, "ledger.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LedgerEntry);
    assert.deepEqual(
      lines.map((l) => [l.gate, l.verdict, l.detail, l.sha, l.tree]),
      [
        ["readiness", "fail", { gaps: [gap], gapSet: ["no-acceptance-criteria"] }, "s", "t"],
        ["readiness", "pass", { gaps: [gap], accepted: ["no-acceptance-criteria"] }, "s", "t"],
      ],
    );
    assert.ok(lines.every((l) => hasValidMac(l, key)));
    assert.equal(verdicts.entries.length, 2);
  });
});
