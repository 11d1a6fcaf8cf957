import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { type AgentSession, gantry, makeProject, passingTest } from "./harness.js";

const prdOf = (root: string, feature: string) => join(root, ".gantry", "features", feature, "prd.json");
const stories = (root: string, feature: string) =>
  JSON.parse(readFileSync(prdOf(root, feature), "utf8")).userStories as Record<string, unknown>[];
const setPlan = (root: string, plan: Record<string, AgentSession[]>) =>
  writeFileSync(join(root, ".agent-plan.json"), JSON.stringify(plan));
const planned = (userStories: unknown[], log: string): AgentSession => ({
  output: { userStories },
  sh: `cat "$GANTRY_PROMPT_FILE" >> ${log}; echo '<<END>>' >> ${log}`,
  print: "## PLANNING COMPLETE\n",
});
const total = {
  id: "US-1",
  title: "Cart total",
  description: "Add total() to src/total.js.",
  acceptanceCriteria: ["total() returns 2"],
};

describe("gantry features new, gantry plan and run --plan through the built CLI", {
  timeout: 240_000,
}, () => {
  it("creates a spec, plans valid stories, keeps passed ones, refuses an invalid answer twice leaving prd.json byte-identical", async () => {
    const root = makeProject({
      stories: [{ id: "X", title: "x", acceptanceCriteria: ["x() returns 1"] }],
      plan: {},
    });
    const log = join(mkdtempSync(join(tmpdir(), "gantry-plan-log-")), "prompts.txt");

    const created = await gantry(root, ["features", "new", "cart"]);
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      readFileSync(join(root, ".gantry/features/cart/spec.md"), "utf8"),
      /## Goal[\s\S]*## Acceptance/,
    );
    assert.match(created.stdout, /next: write the spec, then gantry plan --feature cart/);
    assert.equal((await gantry(root, ["features", "new", "cart"])).code, 2, "never overwrites a spec");

    const second = {
      id: "US-2",
      title: "Empty cart",
      acceptanceCriteria: ["total() returns 0 for []"],
      dependencies: ["US-1"],
    };
    setPlan(root, { plan: [planned([total, { ...second, status: "passed", passes: true }], log)] });
    const first = await gantry(root, ["plan", "--feature", "cart"]);
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.match(
      first.stderr,
      /the spec still holds the template's placeholder text under Goal, Context, Constraints, Acceptance/,
    );
    assert.match(
      readFileSync(join(root, ".gantry/features/cart/plan/plan-1-prompt.md"), "utf8"),
      /## Spec\n\n# cart/,
      "the plan prompt is kept beside the feature",
    );
    assert.match(first.stdout, /added US-1\nadded US-2\nwrote .*prd\.json \(2 stories\)/);
    assert.deepEqual(
      stories(root, "cart").map((s) => [s.id, s.status, s.passes]),
      [
        ["US-1", "pending", false],
        ["US-2", "pending", false],
      ],
      "an agent cannot mark a story passed",
    );
    assert.equal((await gantry(root, ["validate", "--feature", "cart"])).code, 0);
    const prompt = readFileSync(log, "utf8");
    assert.match(prompt, /## Spec\n\n# cart/);
    assert.match(prompt, /src\/base\.js/, "the repository digest lists the files");
    assert.match(prompt, /- `## PLANNING COMPLETE`/);

    // A story that passed is never rewritten; the others are refined or added, and the command says so.
    const doc = JSON.parse(readFileSync(prdOf(root, "cart"), "utf8"));
    Object.assign(doc.userStories[0], { status: "passed", passes: true });
    writeFileSync(prdOf(root, "cart"), JSON.stringify(doc, null, 2));
    const passedBefore = JSON.stringify(doc.userStories[0]);
    const refine = [
      { ...total, title: "Rewritten by the agent" },
      { ...second, title: "Empty cart totals zero" },
      { id: "US-3", title: "Tax", acceptanceCriteria: ["tax() returns 0.2"], dependencies: ["US-1"] },
    ];
    setPlan(root, { plan: [planned(refine, log)] });
    const bytes = readFileSync(prdOf(root, "cart"));
    const dry = await gantry(root, ["plan", "--feature", "cart", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /US-3 {2}Tax\n {4}- tax\(\) returns 0\.2/);
    assert.ok(readFileSync(prdOf(root, "cart")).equals(bytes), "--dry-run writes nothing");
    const refined = await gantry(root, ["plan", "--feature", "cart"]);
    assert.equal(refined.code, 0, refined.stderr);
    assert.match(refined.stdout, /kept US-1 as it is \(passed\)\nrefined US-2 \(title\)\nadded US-3/);
    const after = stories(root, "cart");
    assert.equal(JSON.stringify(after[0]), passedBefore);
    assert.equal(after[1]?.title, "Empty cart totals zero");

    // Invalid twice: the errors go back once, then exit 1 and prd.json is byte-identical.
    writeFileSync(log, "");
    const invalid = [
      { id: "US-4", title: "Vague", acceptanceCriteria: ["it works"] },
      { id: "US-5", title: "Dangling", acceptanceCriteria: ["x() returns 1"], dependencies: ["US-9"] },
    ];
    const hostile =
      "echo '{}' > .gantry/features/cart/prd.json 2>/dev/null; echo x > src/evil.js 2>/dev/null";
    setPlan(root, { plan: [{ ...planned(invalid, log), sh: `${planned(invalid, log).sh}; ${hostile}` }] });
    const good = readFileSync(prdOf(root, "cart"));
    const refused = await gantry(root, ["plan", "--feature", "cart"]);
    assert.equal(refused.code, 1, refused.stderr + refused.stdout);
    assert.ok(readFileSync(prdOf(root, "cart")).equals(good), "prd.json byte-identical");
    assert.match(refused.stderr, /depends on "US-9", which is not a story in this PRD/);
    assert.match(refused.stderr, /no valid plan after 2 answers/);
    if ((await sandboxSupport()).works)
      assert.ok(!existsSync(join(root, "src/evil.js")), "the tree is read-only");
    const prompts = readFileSync(log, "utf8").split("<<END>>\n").filter(Boolean);
    assert.equal(prompts.length, 2, "the agent answered twice");
    assert.doesNotMatch(prompts[0] ?? "", /previous answer was not accepted/);
    assert.match(
      prompts[1] ?? "",
      /previous answer was not accepted\n\n- .*depends on "US-9", which is not a story in this PRD\n- .*US-4 needs at least one criterion with an observable outcome/,
      "every error of the first answer, of both kinds, at once",
    );
  });

  it("run --plan plans a feature that has no prd.json, then runs it", async () => {
    const root = makeProject({
      stories: [{ id: "X", title: "x", acceptanceCriteria: ["x() returns 1"] }],
      plan: {},
    });
    const log = join(mkdtempSync(join(tmpdir(), "gantry-plan-log-")), "prompts.txt");
    assert.equal((await gantry(root, ["features", "new", "shop"])).code, 0);
    setPlan(root, {
      plan: [planned([{ ...total, routing: { complexity: "simple" } }], log)],
      "US-1": [
        {
          write: {
            "src/total.js": "export const total = () => 2;\n",
            "test/total.test.js": passingTest(
              "total",
              'const { total } = await import("../src/total.js");\n  assert.equal(total(), 2);',
            ),
          },
        },
      ],
    });
    const config = JSON.parse(readFileSync(join(root, ".gantry/config.json"), "utf8"));
    config.execution.regression = { mode: "off" };
    writeFileSync(join(root, ".gantry/config.json"), JSON.stringify(config));
    const result = await gantry(root, ["run", "--feature", "shop", "--plan", "--allow-dirty"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(stories(root, "shop")[0]?.status, "passed");
    assert.ok(existsSync(prdOf(root, "shop")));
  });
});
