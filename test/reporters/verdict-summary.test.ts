import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LedgerEntry } from "../../src/model/ledger.js";
import { verdictSummary } from "../../src/reporters/verdict-summary.js";

const entry = (gate: string, detail: Record<string, unknown>): LedgerEntry =>
  ({ gate, verdict: "pass", detail, attempt: 1 }) as unknown as LedgerEntry;

describe("a verdict's detail in a report cell", () => {
  it("is words for every gate, never raw JSON", () => {
    const cells = [
      entry("readiness", { gaps: [] }),
      entry("readiness", {
        gaps: [
          { code: "no-criteria", severity: "blocker", detail: "x" },
          { code: "vague", severity: "warning", detail: "y" },
        ],
        accepted: ["no-criteria"],
      }),
      entry("test-integrity", { findings: [] }),
      entry("test-integrity", {
        findings: [{ kind: "marker-added", file: "t/a.test.js", line: 3, evidence: "e" }],
        allowed: [
          {
            kind: "suppression-added",
            file: "src/a.py",
            line: 2,
            evidence: "e",
            allowedBy: "verify.suppressions: reasoned",
          },
        ],
      }),
      entry("tamper", { role: "implement", changes: [{ what: ".gantry/config.json", restored: true }] }),
      entry("test-strength", { files: [{ file: "t/a.test.js", outcome: "passes-without-change" }] }),
      entry("story-check", { phase: "exit", checks: [{ name: "build", success: false }] }),
      entry("some-plugin-gate", { opaque: { a: 1 } }),
    ].map(verdictSummary);
    assert.deepEqual(cells, [
      "no gaps",
      "gaps: no-criteria, vague (warning); accepted: no-criteria",
      "no findings",
      "1 finding: t/a.test.js:3 marker-added · allowed: src/a.py:2 suppression-added (allowed: verify.suppressions: reasoned)",
      "implement changed .gantry/config.json (put back)",
      "pass without the change: t/a.test.js",
      "exit: build failed",
      "",
    ]);
    for (const cell of cells) assert.doesNotMatch(cell, /[{}]/);
  });
});
