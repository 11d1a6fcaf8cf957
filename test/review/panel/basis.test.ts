import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PanelFinding, ReviewerRecord } from "../../../src/model/review.js";
import { findingBasis, findingReviewers } from "../../../src/review/panel/basis.js";
import { decidePanel } from "../../../src/review/panel/decision.js";

const finding = (reviewer: string, extra: Partial<PanelFinding> = {}): PanelFinding => ({
  reviewer,
  file: "src/cart.ts",
  line: 10,
  severity: "blocking",
  text: "total ignores the discount",
  ...extra,
});
const record = (reviewer: string, findings: PanelFinding[]): ReviewerRecord => ({
  reviewer,
  ok: true,
  findings,
  durationMs: 1,
  startedAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:01.000Z",
});

describe("a decided finding's basis, as the page and the reports say it", () => {
  it("says who corroborated a blocker, which test confirmed one, and test-integrity's", () => {
    const test = { file: "test/cart.test.ts", name: "discount applies" };
    const confirmed = finding("b", { file: "src/pay.ts", text: "pays twice", test });
    const d = decidePanel({
      records: [record("a", [finding("a")]), record("b", [finding("b", { line: 12 }), confirmed])],
      tests: new Map([[confirmed, { confirmed: true, said: "fails on the story's tree, passes at base" }]]),
      integrity: [{ kind: "marker-added", file: "test/x.test.ts", line: 3, evidence: "it.skip(" }],
    });
    assert.deepEqual(d.blockers.map(findingBasis), [
      "test-integrity: a command's evidence, not a model's",
      "corroborated by a and b",
      "confirmed by failing test test/cart.test.ts (discount applies): fails on the story's tree, passes at base",
    ]);
    assert.deepEqual(d.blockers.map(findingReviewers), [["test-integrity"], ["a", "b"], ["b"]]);
  });

  it("says why a blocker was lowered, and that other findings kept their severity", () => {
    const d = decidePanel({
      records: [
        record("a", [
          finding("a"),
          finding("a", { file: "src/ui.ts", severity: "suggestion", text: "rename" }),
        ]),
        record("b", []),
      ],
    });
    assert.deepEqual(d.lowered.map(findingBasis), [
      "lowered: raised by 1 reviewer (a), two needed; no failing test",
    ]);
    assert.deepEqual(d.others.map(findingBasis), ["raised as suggestion; kept as raised"]);
  });
});
