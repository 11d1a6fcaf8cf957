import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PanelFinding, ReviewerRecord } from "../../../src/model/review.js";
import {
  decidePanel,
  fingerprint,
  normaliseFile,
  sameFinding,
  type TestConfirmation,
} from "../../../src/review/panel/decision.js";

const finding = (reviewer: string, extra: Partial<PanelFinding> = {}): PanelFinding => ({
  reviewer,
  file: "src/cart.ts",
  line: 10,
  severity: "blocking",
  text: "total ignores the discount",
  ...extra,
});

const record = (reviewer: string, findings: PanelFinding[], ok = true, problem?: string): ReviewerRecord => ({
  reviewer,
  ok,
  findings,
  durationMs: 1,
  startedAt: "2026-01-01T00:00:00.000Z",
  endedAt: "2026-01-01T00:00:01.000Z",
  ...(problem ? { problem } : {}),
});

describe("the panel decision rule", () => {
  it("lowers a lone blocker to important, with the reason, and passes", () => {
    const lone = finding("a");
    const d = decidePanel({ records: [record("a", [lone]), record("b", [])] });
    assert.equal(d.verdict, "pass");
    assert.deepEqual(d.blockers, []);
    assert.equal(d.lowered.length, 1);
    assert.equal(d.lowered[0]?.severity, "important");
    assert.equal(d.lowered[0]?.raisedAs, "blocking");
    assert.equal(d.lowered[0]?.loweredBecause, "raised by 1 reviewer (a), two needed; no failing test");
    assert.match(d.reason, /no blocker stands \(1 lowered to important\)/);
  });

  it("keeps a blocker two reviewers raised within 3 lines, once, with both reviewers", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { line: 10, text: "wrong total" })]),
        record("b", [finding("b", { line: 13, text: "discount is dropped" })]),
      ],
    });
    assert.equal(d.verdict, "fail");
    assert.equal(d.blockers.length, 1);
    assert.equal(d.blockers[0]?.basis, "corroborated");
    assert.deepEqual(d.blockers[0]?.reviewers, ["a", "b"]);
    assert.deepEqual(d.lowered, []);
    assert.match(d.reason, /1 blocking finding stands: src\/cart\.ts:10 \(raised by a and b\)/);
  });

  it("does not join findings 4 lines apart with different texts", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { line: 10, text: "wrong total" })]),
        record("b", [finding("b", { line: 14, text: "discount is dropped" })]),
      ],
    });
    assert.equal(d.verdict, "pass");
    assert.equal(d.lowered.length, 2);
  });

  it("joins findings by fingerprint: same ruleId anywhere in the file, or the same normalised text", () => {
    const byRule = decidePanel({
      records: [
        record("a", [finding("a", { line: 2, ruleId: "sql-injection", text: "x" })]),
        record("b", [finding("b", { line: 90, ruleId: "sql-injection", text: "y" })]),
      ],
    });
    assert.equal(byRule.blockers.length, 1);
    const byText = decidePanel({
      records: [
        record("a", [finding("a", { line: 0, text: "Total ignores the discount." })]),
        record("b", [finding("b", { line: 50, text: "total  ignores the DISCOUNT" })]),
      ],
    });
    assert.equal(byText.blockers.length, 1);
  });

  it("never joins different ruleIds, even on the same line", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { ruleId: "null-deref" })]),
        record("b", [finding("b", { ruleId: "off-by-one" })]),
      ],
    });
    assert.equal(d.verdict, "pass");
    assert.equal(d.lowered.length, 2);
  });

  it("does not join line 0 (whole file) with a line by distance", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { line: 0, text: "p" })]),
        record("b", [finding("b", { line: 1, text: "q" })]),
      ],
    });
    assert.equal(d.blockers.length, 0);
  });

  it("compares files with diff prefixes stripped", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { file: "a/src/cart.ts" })]),
        record("b", [finding("b", { file: "./src/cart.ts", line: 11, text: "other" })]),
      ],
    });
    assert.equal(d.blockers.length, 1);
    assert.equal(d.blockers[0]?.file, "src/cart.ts");
  });

  it("counts one reviewer saying it twice, or two entries of one source, as one", () => {
    const twice = decidePanel({ records: [record("a", [finding("a"), finding("a", { line: 11 })])] });
    assert.equal(twice.blockers.length, 0);
    assert.equal(twice.lowered.length, 2);
    const sameSource = decidePanel({
      records: [record("a", [finding("a")]), record("a2", [finding("a2")])],
      sources: new Map([
        ["a", "agent:claude:opus"],
        ["a2", "agent:claude:opus"],
      ]),
    });
    assert.equal(sameSource.blockers.length, 0);
    assert.match(sameSource.lowered[0]?.loweredBecause ?? "", /2 reviewers of one source \(a, a2\)/);
  });

  it("keeps a lone blocker whose test failed on the story's tree and not at base", () => {
    const lone = finding("a", { test: { file: "test/cart.test.js" } });
    const tests = new Map<PanelFinding, TestConfirmation>([[lone, { confirmed: true, said: "fails here" }]]);
    const d = decidePanel({ records: [record("a", [lone])], tests });
    assert.equal(d.verdict, "fail");
    assert.equal(d.blockers[0]?.basis, "failing-test");
    assert.equal(d.blockers[0]?.testOutcome, "fails here");
  });

  it("lowers a lone blocker whose test did not confirm it, saying what the test showed", () => {
    const lone = finding("a", { test: { file: "test/cart.test.js" } });
    const tests = new Map<PanelFinding, TestConfirmation>([
      [lone, { confirmed: false, said: "it fails on the story's tree but also at the story's base" }],
    ]);
    const d = decidePanel({ records: [record("a", [lone])], tests });
    assert.equal(d.verdict, "pass");
    assert.match(
      d.lowered[0]?.loweredBecause ?? "",
      /its test did not confirm it: .*also at the story's base/,
    );
  });

  it("keeps test-integrity findings as blockers whatever the reviewers say", () => {
    const d = decidePanel({
      records: [record("a", [])],
      integrity: [{ kind: "test-deleted", file: "test/x.test.js", evidence: "deleted 3 tests" }],
    });
    assert.equal(d.verdict, "fail");
    assert.equal(d.blockers[0]?.basis, "test-integrity");
    assert.equal(d.blockers[0]?.ruleId, "test-integrity/test-deleted");
  });

  it("fails on a missing record even with no findings anywhere", () => {
    const d = decidePanel({
      records: [record("a", []), record("b", [], false, "its output holds no JSON object")],
    });
    assert.equal(d.verdict, "fail");
    assert.deepEqual(d.missing, [{ reviewer: "b", problem: "its output holds no JSON object" }]);
    assert.match(d.reason, /no valid answer from b \(its output holds no JSON object\)/);
  });

  it("passes important findings and suggestions through as they are", () => {
    const d = decidePanel({
      records: [
        record("a", [finding("a", { severity: "important" }), finding("a", { severity: "suggestion" })]),
      ],
    });
    assert.equal(d.verdict, "pass");
    assert.deepEqual(
      d.others.map((o) => o.severity),
      ["important", "suggestion"],
    );
    assert.deepEqual(d.lowered, []);
  });
});

describe("finding identity", () => {
  it("normalises file paths", () => {
    assert.equal(normaliseFile("b/src/x.ts"), "src/x.ts");
    assert.equal(normaliseFile("./././src/x.ts"), "src/x.ts");
    assert.equal(normaliseFile("a/x.ts", new Set(["a/x.ts"])), "a/x.ts");
    assert.equal(normaliseFile("ab/x.ts"), "ab/x.ts");
  });

  it("fingerprints by ruleId, else by text", () => {
    assert.equal(
      fingerprint({ file: "f", ruleId: "r", text: "a" }),
      fingerprint({ file: "f", ruleId: "r", text: "b" }),
    );
    assert.notEqual(fingerprint({ file: "f", text: "a b" }), fingerprint({ file: "g", text: "a b" }));
    assert.equal(fingerprint({ file: "f", text: "A, b!" }), fingerprint({ file: "f", text: "a b" }));
  });

  it("is the same finding only in the same file", () => {
    const x = { file: "src/a.ts", line: 3, text: "t" };
    assert.equal(sameFinding(x, { ...x, line: 6 }), true);
    assert.equal(sameFinding(x, { ...x, line: 7, text: "u" }), false);
    assert.equal(sameFinding(x, { ...x, file: "src/b.ts" }), false);
    assert.equal(sameFinding({ ...x, ruleId: "r" }, { ...x, ruleId: "s" }), false);
  });
});
