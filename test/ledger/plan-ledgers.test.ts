import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { byStart, latestPlanVerdicts, planRuns } from "../../src/ledger/plan-ledgers.js";
import type { RunLedger } from "../../src/ledger/runs.js";
import { entry } from "./entries.js";

const judged = { sha: "a".repeat(40), tree: "b".repeat(40) };
const FILE = ".gantry/features/checkout/plan/ledger.jsonl";

describe("plan ledgers", () => {
  it("orders runs and plans by when they started, a plan by the run id after its prefix", () => {
    assert.deepEqual(byStart(["20250302-080000-aaaa", "plan-20250301-120000-cccc", "20250301-090000-bbbb"]), [
      "20250301-090000-bbbb",
      "plan-20250301-120000-cccc",
      "20250302-080000-aaaa",
    ]);
  });

  it("splits a feature's plan ledger into one ledger per plan, the forged lines kept apart", () => {
    const first = entry(judged, "plan-1", "plan-critique", "pass");
    const second = entry(judged, "plan-2", "plan-critique", "fail");
    const forged = entry(judged, "plan-2", "plan-critique", "pass");
    const ledger: RunLedger = {
      runId: "checkout",
      file: FILE,
      entries: [first, second],
      forged: [forged],
      all: [first, second, forged],
      skipped: 0,
    };
    const plans = planRuns([ledger]);
    assert.deepEqual(
      plans.map((p) => [p.runId, p.file, p.entries.length, p.forged.length]),
      [
        ["plan-1", FILE, 1, 0],
        ["plan-2", FILE, 1, 1],
      ],
    );
    // The newest verified verdict: the forged pass, later than the fail, counts for nothing.
    assert.deepEqual(
      latestPlanVerdicts([ledger]).map((p) => [p.feature, p.verdict, p.runId]),
      [["checkout", "fail", "plan-2"]],
    );
    assert.deepEqual(latestPlanVerdicts([ledger], "other"), []);
  });
});
