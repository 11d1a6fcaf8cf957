import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { baseConfig, gantry, git, lastRun, makeProject, passingTest, prdStories, story } from "./harness.js";

/** What cargo prints after a passing test binary; here printed by the agent's production code. */
const CARGO_PASS =
  "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s";

/** A greet module that prints a cargo-style pass line when loaded, then `tail` (a wrong body, an exit). */
const greetModule = (tail: string): string =>
  `console.log(${JSON.stringify(CARGO_PASS)});\n${tail}\nexport function greet(name) {\n  return \`hi \${name}\`;\n}\n`;
const greetTest = passingTest(
  "greets by name",
  'const { greet } = await import("../src/greet.js");\n  assert.equal(greet("ada"), "hello ada");',
);

function config(testCommand: string) {
  const c = baseConfig();
  (c.quality as { commands: Record<string, string> }).commands.test = testCommand;
  c.execution = { ...(c.execution as object), rectify: { enabled: false, maxAttempts: 0 } };
  c.routing = { tiers: ["fast"] };
  return c;
}

const verifyEntries = (root: string) => lastRun(root).ledger.filter((e) => e.gate === "verify");

describe("an agent whose production code prints another runner's pass summary", () => {
  it("while node's tests fail: node's reading decides, the story fails and no verify verdict is pass", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [{ write: { "src/greet.js": greetModule(""), "test/greet.test.js": greetTest } }] },
      config: config("node --test --test-reporter=spec test/"),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    const verify = verifyEntries(root);
    assert.ok(verify.length > 0);
    for (const entry of verify) {
      assert.equal(entry.verdict, "fail");
      assert.deepEqual((entry.detail as { runner: string }).runner, "node-test");
    }
    assert.doesNotMatch(git(root, "log", "--format=%s"), /gantry\(US-1\)/);
  });

  it("and ends the process before node runs a test, behind `npm test`: two summaries are unparsed, not a pass", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: {
        "US-1": [
          { write: { "src/greet.js": greetModule("process.exit(0);"), "test/greet.test.js": greetTest } },
        ],
      },
      config: config("npm test"),
      files: {
        "package.json": JSON.stringify({
          name: "e2e-project",
          type: "module",
          private: true,
          scripts: { test: "node --test --test-reporter=spec test/" },
        }),
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    const verify = verifyEntries(root);
    assert.ok(verify.length > 0);
    for (const entry of verify) {
      assert.notEqual(entry.verdict, "pass");
      const detail = entry.detail as { status: string; reason: string; exitCode: number };
      assert.equal(detail.status, "UNPARSED");
      assert.equal(detail.exitCode, 0);
      assert.match(detail.reason, /two different runners' summaries in one output \(cargo: 5 passed/);
    }
    assert.doesNotMatch(git(root, "log", "--format=%s"), /gantry\(US-1\)/);
  });
});
