import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readLedgerKey } from "../../src/ledger/key.js";
import { hasValidMac } from "../../src/ledger/mac.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { startServer } from "../../src/serve/server.js";
import type { RunView } from "../../src/serve/view-types.js";
import { call } from "../serve/http.js";
import { gantry, git, lastRun, passingTest, TEST_STATE_HOME } from "./harness.js";
import { ADVISORY, BINDING, project, US1, US2 } from "./plan-critic-project.js";

const plan = (root: string, ...extra: string[]) => gantry(root, ["plan", "--feature", "cart", ...extra]);
const critiqueFile = (root: string) =>
  JSON.parse(readFileSync(join(root, ".gantry/features/cart/plan-critique.json"), "utf8"));
function planLedger(root: string): LedgerEntry[] {
  const key = readLedgerKey(root, { ...process.env, XDG_STATE_HOME: TEST_STATE_HOME });
  const lines = readFileSync(join(root, ".gantry/features/cart/plan/ledger.jsonl"), "utf8").split("\n");
  const entries = lines.filter(Boolean).map((l) => JSON.parse(l) as LedgerEntry);
  for (const entry of entries) assert.ok(key && hasValidMac(entry, key.key), "every line is signed");
  return entries;
}
const storyIds = (prd: string) =>
  (JSON.parse(readFileSync(prd, "utf8")).userStories as { id: string }[]).map((s) => s.id);

describe("gantry plan's critic through the built CLI: one round, judged by rule", {
  timeout: 300_000,
}, () => {
  it("a binding objection accepted with a revision: the revised plan is written, the critique kept beside it", async () => {
    const sandboxed = (await sandboxSupport()).works;
    const p = project({
      objections: [BINDING],
      reply: {
        replies: [{ objection: "OBJ-1", reply: "accept", anchors: [{ kind: "story", story: "US-2" }] }],
        userStories: [US2],
      },
      config: { plan: { criticTier: "balanced" } },
      hostile: sandboxed,
    });
    const result = await plan(p.root);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.match(result.stdout, /added US-1\nafter the critique: added US-2\n/);
    assert.match(
      result.stdout,
      /OBJ-1 \[feasibility\] R-1 \(binding\) answered: US-1 ships total\(\) without a test/,
    );
    assert.deepEqual(storyIds(p.prd), ["US-1", "US-2"]);
    assert.deepEqual(readFileSync(p.log, "utf8").trim().split("\n"), [
      "plan powerful",
      "critic balanced",
      "plan powerful",
    ]);
    const critique = critiqueFile(p.root);
    assert.equal(critique.verdict, "pass");
    assert.deepEqual(critique.objections[0].reply, { reply: "accept", anchors: ["story US-2"] });
    const [line] = planLedger(p.root);
    assert.equal(line?.gate, "plan-critique");
    assert.equal(line?.sha, git(p.root, "rev-parse", "HEAD").trim(), "bound to HEAD");
    // The judged tree is the working tree's, .gantry/ left out as in every verdict.
    assert.match(
      git(p.root, "ls-tree", "--name-only", line?.tree ?? ""),
      /^src\ntest\n/m,
      "and to the tree critiqued",
    );
    assert.ok(!existsSync(join(p.root, "src/evil.js")), "the critic's tree is read-only");
    assert.equal(line?.verdict, "pass");
    assert.deepEqual(line?.detail, { objections: 1, blocks: 0, answered: 1, advisory: 0 });
    const prompt = readFileSync(join(p.root, ".gantry/features/cart/plan/critic-prompt.md"), "utf8");
    assert.match(prompt, /- R-1 \(binding\): every public function has a test/);
    assert.match(prompt, /"id": "US-1"/);
    assert.ok(
      existsSync(join(p.root, ".gantry/features/cart/plan/reply-prompt.md")),
      "the reply prompt is kept",
    );
  });

  it("a binding objection rebutted with a quote that resolves passes; with inference only, or a quote not on its line, it blocks", async () => {
    const rebut = (anchors: unknown[]) => ({ replies: [{ objection: "OBJ-1", reply: "rebut", anchors }] });
    const quote = {
      kind: "file",
      path: "test/cart.test.js",
      line: 3,
      quote: 'test("total of an empty cart is 0"',
    };
    const resolving = project({ objections: [BINDING], reply: rebut([quote]) });
    const passed = await plan(resolving.root);
    assert.equal(passed.code, 0, passed.stderr + passed.stdout);
    assert.deepEqual(storyIds(resolving.prd), ["US-1"]);

    const inference = project({
      objections: [BINDING],
      reply: rebut([{ kind: "inference", reasoning: "tests come later" }]),
    });
    const blocked = await plan(inference.root);
    assert.equal(blocked.code, 1, blocked.stderr + blocked.stdout);
    assert.ok(!existsSync(inference.prd), "prd.json is not written");
    assert.match(
      blocked.stderr,
      /OBJ-1 \[feasibility\] R-1 \(binding\) blocks: US-1 ships total\(\) without a test/,
    );
    assert.match(blocked.stderr, /reply: rebut \(inference\)\n\s+rebutted with inference only/);
    assert.match(blocked.stderr, /the critique blocks this plan; .*prd\.json is unchanged/);
    assert.equal(planLedger(inference.root)[0]?.verdict, "fail");
    assert.ok(!existsSync(join(inference.root, ".gantry/features/cart/plan-critique.json")));

    const misquoted = project({ objections: [BINDING], reply: rebut([{ ...quote, line: 1 }]) });
    writeFileSync(
      misquoted.prd,
      JSON.stringify({ feature: "cart", userStories: [{ ...US1, title: "Old" }] }),
    );
    const before = readFileSync(misquoted.prd);
    const refused = await plan(misquoted.root);
    assert.equal(refused.code, 1, refused.stderr + refused.stdout);
    assert.ok(readFileSync(misquoted.prd).equals(before), "prd.json byte-identical");
    assert.match(
      refused.stderr,
      /test\/cart\.test\.js:1 does not hold "test\(\\"total of an empty cart is 0\\""/,
    );
  });

  it("the protocol: a reply to an objection nobody raised, or an objection left without a reply, blocks", async () => {
    const accept = { objection: "OBJ-1", reply: "accept", anchors: [{ kind: "story", story: "US-2" }] };
    const unknown = project({
      objections: [BINDING],
      reply: {
        replies: [
          accept,
          { objection: "OBJ-2", reply: "rebut", anchors: [{ kind: "story", story: "US-1" }] },
        ],
        userStories: [US2],
      },
    });
    const extra = await plan(unknown.root);
    assert.equal(extra.code, 1, extra.stderr + extra.stdout);
    assert.match(extra.stderr, /protocol: replies\[1\] answers OBJ-2, which the critic did not raise/);
    assert.ok(!existsSync(unknown.prd));

    const missing = project({
      objections: [BINDING, { ...ADVISORY, id: "OBJ-2" }],
      reply: { replies: [accept], userStories: [US2] },
    });
    const silent = await plan(missing.root);
    assert.equal(silent.code, 1, silent.stderr + silent.stdout);
    assert.match(silent.stderr, /protocol: OBJ-2 has no reply/);
    assert.match(
      silent.stderr,
      /OBJ-2 \[alternative\] advisory: a reduce would read better\n.*\n\s+reply: none/,
    );
    assert.equal(planLedger(missing.root)[0]?.detail.protocol?.toString(), "OBJ-2 has no reply");
  });

  it("an advisory-only critique passes with its objections and replies kept; --no-critic skips the critic and says so", async () => {
    const p = project({
      objections: [ADVISORY],
      reply: {
        replies: [
          {
            objection: "OBJ-1",
            reply: "rebut",
            anchors: [{ kind: "inference", reasoning: "map reads fine" }],
          },
        ],
      },
    });
    const result = await plan(p.root);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const critique = critiqueFile(p.root);
    assert.equal(critique.objections[0].outcome, "advisory");
    assert.deepEqual(critique.objections[0].reply.anchors, ["inference"]);
    assert.match(result.stdout, /OBJ-1 \[alternative\] advisory: a reduce would read better/);

    writeFileSync(p.log, "");
    const skipped = await plan(p.root, "--no-critic");
    assert.equal(skipped.code, 0, skipped.stderr + skipped.stdout);
    assert.deepEqual(readFileSync(p.log, "utf8").trim().split("\n"), ["plan powerful"], "no critic session");
    assert.equal(critiqueFile(p.root).skipped, "--no-critic");
    assert.deepEqual(
      planLedger(p.root).map((l) => [l.verdict, l.detail.skipped]),
      [
        ["pass", undefined],
        ["not-applicable", "--no-critic"],
      ],
    );
  });

  it("a run of the planned feature shows its critique in report.md, report.html and the live page's view", async () => {
    const p = project({
      objections: [ADVISORY],
      reply: {
        replies: [{ objection: "OBJ-1", reply: "rebut", anchors: [{ kind: "spec", heading: "Goal" }] }],
      },
      config: { reporters: ["markdown", "html"], execution: { regression: { mode: "off" } } },
      implement: [
        {
          write: {
            "src/total.js": "export const total = () => 0;\n",
            "test/total.test.js": passingTest(
              "total",
              'const { total } = await import("../src/total.js");\n  assert.equal(total(), 0);',
            ),
          },
        },
      ],
    });
    assert.equal((await plan(p.root)).code, 0);
    const run = await gantry(p.root, ["run", "--feature", "cart", "--allow-dirty"]);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const { dir } = lastRun(p.root);
    const markdown = readFileSync(join(dir, "report.md"), "utf8");
    assert.match(
      markdown,
      /## Plan critique\n\n- plan-critique: pass, 1 objection\(s\)\n {2}- OBJ-1 \\\[alternative\\\] advisory: a reduce would read better/,
    );
    assert.match(markdown, /reply: rebut \(spec "Goal"\)/);
    assert.match(
      readFileSync(join(dir, "report.html"), "utf8"),
      /<h2>Plan critique<\/h2><pre>plan-critique: pass/,
    );
    const server = await startServer({ root: p.root, host: "127.0.0.1", port: 0, token: "t" });
    try {
      const runId = dir.split("/").at(-1) ?? "";
      const view = (
        await call(server.port, "GET", `/api/runs/${runId}`, { headers: { authorization: "Bearer t" } })
      ).body as unknown as RunView;
      assert.equal(view.planCritique?.[0], "plan-critique: pass, 1 objection(s)");
      assert.match(view.planCritique?.[1] ?? "", /OBJ-1 \[alternative\] advisory/);
    } finally {
      await server.close();
    }
  });

  it("gantry rules lists the rules, validate names every bad line, plan.critic off runs no critic, a critic's bad answer writes nothing", async () => {
    const p = project({
      objections: [{ ...BINDING, lens: "style", anchors: [] }],
      config: { plan: { critic: "off" } },
    });
    const listed = await gantry(p.root, ["rules"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      /^R-1 {6}binding {3}every public function has a test\nR-2 {6}proposed {2}stories stay small\n2 rule\(s\) in \.gantry\/rules\.md, 1 binding\n$/,
    );
    const json = JSON.parse((await gantry(p.root, ["rules", "--json"])).stdout);
    assert.deepEqual(json.rules[0], {
      id: "R-1",
      status: "binding",
      text: "every public function has a test",
      line: 3,
    });
    const valid = await gantry(p.root, ["validate", "--feature", "f"]);
    assert.match(valid.stdout, /rules: \.gantry\/rules\.md \(2 rules, 1 binding\)/, valid.stderr);

    const off = await plan(p.root);
    assert.equal(off.code, 0, off.stderr + off.stdout);
    assert.deepEqual(readFileSync(p.log, "utf8").trim().split("\n"), ["plan powerful"]);
    assert.equal(critiqueFile(p.root).skipped, "plan.critic is off");

    const config = JSON.parse(readFileSync(join(p.root, ".gantry/config.json"), "utf8"));
    writeFileSync(join(p.root, ".gantry/config.json"), JSON.stringify({ ...config, plan: {} }));
    const before = readFileSync(p.prd);
    const bad = await plan(p.root);
    assert.equal(bad.code, 1, bad.stderr + bad.stdout);
    assert.match(bad.stderr, /the critic's answer: objections\[0\]\.lens: .*\n.*objections\[0\]\.anchors: /);
    assert.match(bad.stderr, /the plan was not critiqued; .*prd\.json is unchanged/);
    assert.ok(readFileSync(p.prd).equals(before));
    assert.equal(planLedger(p.root).at(-1)?.verdict, "unverified");

    writeFileSync(join(p.root, ".gantry/rules.md"), "- R-1 binding: ok\n- R-2 must: x\n- R-1 proposed: y\n");
    const invalid = await gantry(p.root, ["validate", "--feature", "f"]);
    assert.equal(invalid.code, 2);
    assert.match(invalid.stderr, /\.gantry\/rules\.md: line 2: expected "- R-2 binding: <rule>"/);
    assert.match(invalid.stderr, /\.gantry\/rules\.md: line 3: R-1 is already the rule of line 1/);
    const refused = await plan(p.root);
    assert.equal(refused.code, 2, "a bad rules file is bad input: nothing runs");
    assert.doesNotMatch(refused.stderr, /\n\s+at /, "no stack trace");
  });
});
