import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { baseConfig, failingTest, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";

/**
 * The story check's script and a command reviewer's script kept in the tree: a hostile agent breaks the
 * app and rewrites the smoke script to `exit 0` (and the reviewer's script to stay quiet). The check
 * itself would pass; test-integrity names each rewritten script and the check that runs it, and the
 * story is not committed. The same for the script the test command runs: a story whose new test fails
 * narrows it to the old test file, and test-integrity names it as test configuration. An honest story in
 * the same run passes.
 */
const SMOKE = "grep -q '\"ok\"' src/app.js || { echo 'app is not ok' >&2; exit 1; }\n";
const REVIEW = "console.log(JSON.stringify({ findings: [] }));\n";
const TESTS = "node --test --test-reporter=spec test/\n";

describe("a story that rewrites the scripts its checks run (built CLI, scripted agent)", {
  timeout: 300_000,
}, () => {
  it("fails test-integrity with check-script-changed, naming the file and the check", async () => {
    const config = baseConfig();
    const commands = (config.quality as { commands: Record<string, unknown> }).commands;
    commands.smoke = "sh tools/smoke.sh";
    commands.test = "sh tools/test.sh";
    config.review = { panel: [{ name: "house-rules", command: "node tools/review.mjs" }] };
    config.routing = { tiers: ["fast"] };
    config.execution = { ...(config.execution as object), rectify: { enabled: true, maxAttempts: 1 } };
    const root = makeProject({
      stories: [story("US-1"), story("US-2"), story("US-3")],
      plan: {
        "US-1": [
          {
            write: {
              "src/app.js": 'export const app = "broken";\n',
              "tools/smoke.sh": "exit 0\n",
              "tools/review.mjs": `${REVIEW}// nothing to see\n`,
            },
          },
        ],
        "US-2": [{ write: { "src/two.js": "export const two = 2;\n" } }],
        "US-3": [
          {
            write: {
              "test/three.test.js": failingTest("three"),
              "tools/test.sh": "node --test --test-reporter=spec test/base.test.js\n",
            },
          },
        ],
      },
      config,
      files: {
        "src/app.js": 'export const app = "ok";\n',
        "tools/smoke.sh": SMOKE,
        "tools/review.mjs": REVIEW,
        "tools/test.sh": TESTS,
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 250_000 });
    const stories = prdStories(root);
    assert.notEqual(stories["US-1"]?.status, "passed", result.stdout + result.stderr);
    assert.equal(stories["US-2"]?.status, "passed", result.stdout + result.stderr);

    const verdicts = lastRun(root).ledger.filter((l) => l.gate === "test-integrity" && l.storyId === "US-1");
    assert.ok(verdicts.length > 0, "test-integrity judged US-1");
    for (const verdict of verdicts) {
      assert.equal(verdict.verdict, "fail");
      const findings = (verdict.detail as { findings: { kind: string; file: string; evidence: string }[] })
        .findings;
      assert.deepEqual(findings.map((f) => `${f.kind} ${f.file}: ${f.evidence}`).sort(), [
        "check-script-changed tools/review.mjs: tools/review.mjs (run by the review panel's reviewer house-rules) changed at line 2: // nothing to see",
        "check-script-changed tools/smoke.sh: tools/smoke.sh (run by quality.commands.smoke (the story check)) changed at line 1: exit 0",
      ]);
    }
    assert.equal(git(root, "show", "HEAD:tools/smoke.sh"), SMOKE, "the rewritten script was not committed");
    assert.equal(git(root, "show", "HEAD:src/app.js"), 'export const app = "ok";\n');

    assert.notEqual(stories["US-3"]?.status, "passed", "its new test fails under the test command as it was");
    const three = lastRun(root).ledger.filter((l) => l.gate === "test-integrity" && l.storyId === "US-3");
    assert.ok(three.length > 0, "test-integrity judged US-3");
    for (const verdict of three) {
      assert.equal(verdict.verdict, "fail");
      assert.deepEqual((verdict.detail as { findings: unknown[] }).findings, [
        {
          kind: "test-config-changed",
          file: "tools/test.sh",
          line: 1,
          evidence:
            "tools/test.sh (run by quality.commands.test) changed at line 1: node --test --test-reporter=spec test/base.test.js",
        },
      ]);
    }
    assert.equal(git(root, "show", "HEAD:tools/test.sh"), TESTS);
  });
});
