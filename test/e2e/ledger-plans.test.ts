import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { gantry } from "./harness.js";
import { BINDING, project, US2 } from "./plan-critic-project.js";

/** `gantry ledger` and `gantry ledger check` read the plans' ledgers too, by the same MAC rule as the runs'. */
describe("gantry ledger with a plan's ledger, through the built CLI", { timeout: 240_000 }, () => {
  it("shows the newest plan's plan-critique line, reports it in check, and marks and ignores a forged one", async () => {
    const p = project({
      objections: [BINDING],
      reply: {
        replies: [{ objection: "OBJ-1", reply: "accept", anchors: [{ kind: "story", story: "US-2" }] }],
        userStories: [US2],
      },
      // No mandatory gate: check's exit then says nothing of the plans, only its report does.
      config: { gates: { mandatory: [] } },
    });
    const planned = await gantry(p.root, ["plan", "--feature", "cart"]);
    assert.equal(planned.code, 0, planned.stderr + planned.stdout);
    const file = join(p.root, ".gantry/features/cart/plan/ledger.jsonl");
    const [line] = readFileSync(file, "utf8").trim().split("\n");
    const entry = JSON.parse(line as string);
    assert.match(entry.runId, /^plan-\d{8}-\d{6}-/);

    const shown = await gantry(p.root, ["ledger"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(
      shown.stdout,
      new RegExp(
        `^plan ${entry.runId} in \\.gantry/features/cart/plan/ledger\\.jsonl \\(feature cart\\): 1 verdict\\n`,
      ),
    );
    assert.match(
      shown.stdout,
      /\*\s+plan-critique\s+pass\s+1\s+\S+\s+objections=1 blocks=0 answered=1 advisory=0/,
    );
    const json = await gantry(p.root, ["ledger", "--run", entry.runId, "--json"]);
    assert.deepEqual(
      JSON.parse(json.stdout).map((e: { gate: string; verdict: string }) => [e.gate, e.verdict]),
      [["plan-critique", "pass"]],
    );

    const checked = await gantry(p.root, ["ledger", "check"]);
    assert.equal(checked.code, 0, checked.stderr + checked.stdout);
    assert.match(
      checked.stdout,
      new RegExp(`plan of feature cart: plan-critique pass \\(${entry.runId}, not a mandatory gate\\)`),
    );

    // A line written without the key (here: the verdict changed, a later time) counts for nothing.
    appendFileSync(
      file,
      `${JSON.stringify({ ...entry, verdict: "fail", at: "2999-01-01T00:00:00.000Z" })}\n`,
    );
    const forged = await gantry(p.root, ["ledger", "check", "--json"]);
    assert.equal(forged.code, 0, forged.stderr + forged.stdout);
    assert.match(
      forged.stderr,
      /1 line in \.gantry\/features\/cart\/plan\/ledger\.jsonl has no valid MAC \(forged or written by another key\); ignored/,
    );
    const report = JSON.parse(forged.stdout);
    assert.equal(report.unverified, 1);
    assert.deepEqual(
      report.plans.map((plan: { feature: string; verdict: string }) => [plan.feature, plan.verdict]),
      [["cart", "pass"]],
    );
    const marked = await gantry(p.root, ["ledger"]);
    assert.match(marked.stdout, /1 verdict \(and 1 without a valid MAC, marked\)/);
    assert.match(marked.stdout, /plan-critique\s+fail \(NO VALID MAC\)/);
    const unknown = await gantry(p.root, ["ledger", "--run", "plan-nope"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, new RegExp(`no run "plan-nope" .* \\(newest: ${entry.runId}\\)`));
  });
});
