import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RUN_SCOPE } from "../../src/ledger/entry.js";
import { describeGate, gateStates, PASSING, shortHash, unmetGates } from "../../src/ledger/gate-rule.js";
import type { LedgerEntry, Verdict } from "../../src/model/ledger.js";
import { entry as ledgerEntry } from "./entries.js";

const TREE = "a".repeat(40);
const OTHER = "b".repeat(40);

let at = 0;
const entry = (gate: string, verdict: Verdict, patch: Partial<LedgerEntry> = {}): LedgerEntry => ({
  v: 1,
  runId: "r1",
  feature: "f",
  storyId: "US-1",
  gate,
  verdict,
  sha: "c".repeat(40),
  tree: TREE,
  at: `2026-01-01T00:00:${String(at++ % 60).padStart(2, "0")}Z`,
  attempt: 1,
  detail: {},
  ...patch,
});

describe("the one rule for every mandatory gate passed", () => {
  test("pass and not-applicable are the passing verdicts, and only they", () => {
    assert.deepEqual([...PASSING].sort(), ["not-applicable", "pass"]);
    for (const verdict of ["pass", "not-applicable", "fail", "unverified"] as const) {
      const [state] = gateStates([entry("verify", verdict)], TREE, ["verify"]);
      assert.equal(state?.ok, verdict === "pass" || verdict === "not-applicable", verdict);
    }
  });

  test("the latest verdict on the tree counts, in the order judged", () => {
    const states = gateStates(
      [entry("verify", "pass"), entry("verify", "fail"), entry("review", "fail"), entry("review", "pass")],
      TREE,
      ["verify", "review"],
    );
    assert.deepEqual(
      states.map((s) => [s.gate, s.ok, s.latest?.verdict]),
      [
        ["verify", false, "fail"],
        ["review", true, "pass"],
      ],
    );
    assert.equal(states[0]?.elsewhere, undefined);
  });

  test("a verdict on another tree does not count, but is kept to say why (the latest one)", () => {
    const older = entry("verify", "fail", { tree: OTHER, runId: "r0" });
    const newer = entry("verify", "pass", { tree: OTHER, runId: "r2" });
    const [state] = gateStates([older, newer], TREE, ["verify"]);
    assert.deepEqual(state, { gate: "verify", ok: false, elsewhere: newer });
    // A verdict on the tree itself wins over any elsewhere, which is then not reported.
    const onTree = entry("verify", "pass");
    assert.deepEqual(gateStates([newer, onTree], TREE, ["verify"])[0], {
      gate: "verify",
      ok: true,
      latest: onTree,
    });
  });

  test("a gate with no verdict anywhere is not met, and has neither latest nor elsewhere", () => {
    assert.deepEqual(gateStates([entry("review", "pass")], TREE, ["verify"]), [
      { gate: "verify", ok: false },
    ]);
    assert.deepEqual(gateStates([], TREE, []), []);
  });

  test("only the mandatory gates are returned, in the order given", () => {
    const entries = [entry("verify", "pass"), entry("review", "pass"), entry("acceptance", "fail")];
    assert.deepEqual(
      gateStates(entries, TREE, ["review", "verify"]).map((s) => s.gate),
      ["review", "verify"],
    );
  });

  test("a story scope keeps only that story's verdicts; without one, every story and run-level verdict counts", () => {
    const other = entry("verify", "pass", { storyId: "US-2" });
    const mine = entry("verify", "fail");
    assert.equal(gateStates([mine, other], TREE, ["verify"], { storyId: "US-1" })[0]?.ok, false);
    assert.equal(gateStates([mine, other], TREE, ["verify"], { storyId: "US-2" })[0]?.ok, true);
    assert.equal(gateStates([mine, other], TREE, ["verify"])[0]?.ok, true, "the latest of all");
    assert.deepEqual(gateStates([other], TREE, ["verify"], { storyId: "US-1" }), [
      { gate: "verify", ok: false },
    ]);
    const elsewhere = entry("verify", "pass", { storyId: "US-2", tree: OTHER });
    assert.deepEqual(gateStates([elsewhere], TREE, ["verify"], { storyId: "US-1" }), [
      { gate: "verify", ok: false },
    ]);
    const runLevel = entry("regression", "pass", { storyId: RUN_SCOPE });
    assert.equal(gateStates([runLevel], TREE, ["regression"])[0]?.ok, true);
    assert.equal(gateStates([runLevel], TREE, ["regression"], { storyId: "" })[0]?.ok, false);
  });

  test("unmet gates are described, and none when every gate passed", () => {
    const states = gateStates(
      [entry("verify", "pass"), entry("review", "fail", { runId: "r7", storyId: "US-3" })],
      TREE,
      ["verify", "review", "acceptance"],
    );
    assert.deepEqual(unmetGates(states), [
      "review: fail (run r7, story US-3)",
      "acceptance: no verdict for this tree",
    ]);
    assert.deepEqual(unmetGates(gateStates([entry("verify", "not-applicable")], TREE, ["verify"])), []);
  });

  test("a gate judged on another tree says what it was there, on which short tree, where", () => {
    const [state] = gateStates(
      [entry("regression", "pass", { tree: `1a2b3c4${"d".repeat(33)}`, runId: "r9", storyId: RUN_SCOPE })],
      TREE,
      ["regression"],
    );
    assert.equal(
      describeGate(state as never),
      "regression: no verdict for this tree (last: pass on tree 1a2b3c4, run r9, run-level)",
    );
    assert.equal(
      describeGate({ gate: "verify", ok: true, latest: entry("verify", "pass", { runId: "r3" }) }),
      "verify: pass (run r3, story US-1)",
    );
  });

  test("shortHash keeps the first seven characters", () => {
    assert.equal(shortHash("0123456789abcdef"), "0123456");
    assert.equal(shortHash("abc"), "abc");
  });
});

describe("gate rule, across runs and trees", () => {
  const judged = { sha: "0".repeat(40), tree: "a".repeat(40) };
  const other = { sha: "0".repeat(40), tree: "b".repeat(40) };

  test("gateStates: latest on this tree, else what was judged elsewhere", () => {
    const states = gateStates(
      [
        ledgerEntry(judged, "r1", "verify", "fail"),
        ledgerEntry(judged, "r2", "verify", "pass"),
        ledgerEntry(other, "r2", "review", "pass"),
        ledgerEntry(judged, "r3", "review", "unverified", { storyId: "*" }),
        ledgerEntry(other, "r3", "acceptance", "pass"),
      ],
      judged.tree,
      ["verify", "review", "acceptance", "regression"],
    );
    assert.deepEqual(
      states.map((s) => [s.gate, s.ok]),
      [
        ["verify", true],
        ["review", false],
        ["acceptance", false],
        ["regression", false],
      ],
    );
    assert.deepEqual(states.map(describeGate), [
      "verify: pass (run r2, story US-001)",
      "review: unverified (run r3, run-level)",
      "acceptance: no verdict for this tree (last: pass on tree bbbbbbb, run r3, story US-001)",
      "regression: no verdict for this tree",
    ]);
  });
});
