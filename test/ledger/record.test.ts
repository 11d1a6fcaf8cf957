import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { VerdictBook } from "../../src/ledger/book.js";
import { hasValidMac } from "../../src/ledger/mac.js";
import { recordVerdict } from "../../src/ledger/record.js";
import type { EventOf } from "../../src/model/events.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import { wireLedger } from "../../src/subscribers/ledger.js";

describe("recordVerdict", () => {
  it("builds and signs the verdict where it is judged, books it, and the ledger writes the same line", async () => {
    const runDir = mkdtempSync(join(tmpdir(), "gantry-ledger-record-"));
    const bus = createEventBus({ runId: "run-1" });
    const key = randomBytes(32);
    const verdicts = new VerdictBook("f", key);
    const off = wireLedger(bus, { runDir });
    const announced: EventOf<"gate:verdict">[] = [];
    bus.on("gate:verdict", "test", (event) => {
      announced.push(event);
    });
    const gap = { code: "no-acceptance-criteria" as const, severity: "blocker" as const, detail: "none" };
    const base = { storyId: "US-1", gaps: [gap], judged: { sha: "s", tree: "t" }, attempt: 0 };
    const failed = recordVerdict({ bus, verdicts }, "readiness:result", {
      ...base,
      verdict: "fail",
      accepted: [],
      gapSet: ["no-acceptance-criteria"],
      ask: true,
    });
    const passed = recordVerdict({ bus, verdicts }, "readiness:result", {
      ...base,
      verdict: "pass",
      accepted: ["no-acceptance-criteria"],
      gapSet: [],
    });
    await bus.flush();
    off();
    assert.deepEqual(
      [failed.verdict, passed.verdict],
      ["fail", "pass"],
      "the caller has its verdict at once",
    );
    const lines = readFileSync(join(runDir, "ledger.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LedgerEntry);
    assert.deepEqual(
      lines.map((l) => [l.feature, l.gate, l.verdict, l.detail, l.sha, l.tree]),
      [
        ["f", "readiness", "fail", { gaps: [gap], gapSet: ["no-acceptance-criteria"] }, "s", "t"],
        ["f", "readiness", "pass", { gaps: [gap], accepted: ["no-acceptance-criteria"] }, "s", "t"],
      ],
    );
    assert.ok(
      lines.every((l) => hasValidMac(l, key)),
      "the written lines verify with the run's key",
    );
    assert.deepEqual(lines, [...verdicts.entries], "the file holds exactly what the book decided from");
    assert.deepEqual(
      announced.map((e) => e.mac),
      lines.map((l) => l.mac),
    );
  });

  it("books the verdict even when the ledger subscriber fails", () => {
    const faults: unknown[] = [];
    const bus = createEventBus({ runId: "run-2", onFault: (f) => faults.push(f) });
    bus.on("gate:verdict", "broken", () => {
      throw new Error("disk full");
    });
    const verdicts = new VerdictBook("f", randomBytes(32));
    recordVerdict({ bus, verdicts }, "tamper:result", {
      storyId: "US-1",
      role: "implement",
      verdict: "fail",
      changes: [{ what: "prd.json", restored: true }],
      judged: { sha: "s", tree: "t" },
      attempt: 1,
    });
    assert.equal(faults.length, 1);
    assert.deepEqual(
      verdicts.entries.map((e) => [e.gate, e.verdict]),
      [["tamper", "fail"]],
    );
  });
});
