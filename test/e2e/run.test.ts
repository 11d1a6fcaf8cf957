import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AgentSession,
  agentCalls,
  baseConfig,
  gantry,
  git,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  story,
} from "./harness.js";

/** A module and a test that imports it: the test passes only when `value` is what it expects. */
const moduleWithTest = (
  name: string,
  value: number,
  expected = value,
  decl = "const",
): Record<string, string> => ({
  [`src/${name}.js`]: `export function ${name}() {\n  ${decl} v = ${value};\n  return v;\n}\n`,
  [`test/${name}.test.js`]: passingTest(
    name,
    `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}(), ${expected});`,
  ),
});
const good = (name: string): AgentSession => ({ write: moduleWithTest(name, 2) });
const buggy = (name: string, value = 3): AgentSession => ({ write: moduleWithTest(name, value, 2) });
const unlinted = (name: string): AgentSession => ({ write: moduleWithTest(name, 2, 2, "let") });

function withExecution(patch: Record<string, unknown>) {
  const config = baseConfig();
  config.execution = { ...(config.execution as object), ...patch };
  return config;
}

describe("gantry run, end to end", { concurrency: 2 }, () => {
  it("passes a story the first time: verify and review pass, the work is committed, exit 0", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [good("alpha")] } });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.equal(prdStories(root)["US-1"]?.passes, true);
    assert.match(git(root, "log", "-1", "--format=%s"), /^gantry\(US-1\): Story US-1/);
    assert.equal(git(root, "status", "--porcelain", "--", "src", "test"), "");
    const { ledger, events } = lastRun(root);
    const verdicts = ledger.map((e) => `${e.storyId}:${e.gate}:${e.verdict}`);
    assert.deepEqual(verdicts, [
      "US-1:verify:pass",
      "US-1:test-integrity:pass",
      "US-1:review:pass",
      "*:regression:pass",
    ]);
    const committedTree = git(root, "rev-parse", "HEAD^{tree}").trim();
    assert.ok(ledger.every((e) => typeof e.tree === "string" && (e.tree as string).length === 40));
    assert.notEqual(
      ledger[0]?.tree,
      committedTree,
      "the judged tree excludes .gantry/, the commit includes prd.json",
    );
    assert.ok(events.some((e) => e.type === "story:complete"));
    assert.equal(agentCalls(root).length, 1);
    assert.ok(agentCalls(root).every((c) => c.promptFileMatches));
    // The deferred regression's tree is the one verify ran the same full suite on: that pass is its answer.
    const [verifyEntry, , , regression] = ledger;
    assert.equal(regression?.tree, verifyEntry?.tree);
    assert.match(
      String(((regression?.detail ?? {}) as { scope?: string }).scope),
      /^full suite: passed on this tree in US-1's verify \(attempt 1\); not run again$/,
    );
  });

  it("a scoped verify is not the full suite: the deferred regression runs the whole suite itself", async () => {
    const config = baseConfig();
    (config.quality as { commands: Record<string, string> }).commands.testScoped =
      "node --test --test-reporter=spec {{files}}";
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [good("gamma")] }, config });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const { ledger } = lastRun(root);
    const verify = ledger.find((e) => e.gate === "verify");
    const regression = ledger.find((e) => e.gate === "regression");
    assert.equal(regression?.tree, verify?.tree, "the same tree");
    assert.equal(regression?.verdict, "pass");
    assert.doesNotMatch(String(((regression?.detail ?? {}) as { scope?: string }).scope), /not run again/);
    // The whole suite: the base test and the story's, where the scoped run had the story's alone.
    assert.equal(((verify?.detail ?? {}) as { passCount?: number }).passCount, 1);
    assert.equal(((regression?.detail ?? {}) as { passCount?: number }).passCount, 2);
  });

  it("rectify fixes a failing test: the ledger holds a fail for the first verify and a pass for the last", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [buggy("beta"), good("beta")] } });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    const verify = lastRun(root)
      .ledger.filter((e) => e.gate === "verify")
      .map((e) => e.verdict);
    assert.deepEqual(verify, ["fail", "pass"]);
    assert.deepEqual(
      agentCalls(root).map((c) => c.role),
      ["implement", "rectify"],
    );
  });

  it("autofix fixes a lint error with lintFix, without an agent session", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [unlinted("gamma")] } });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    const reviews = lastRun(root)
      .ledger.filter((e) => e.gate === "review")
      .map((e) => e.verdict);
    assert.deepEqual(reviews, ["fail", "pass"]);
    assert.match(readFileSync(join(root, "src/gamma.js"), "utf8"), /const v = 2/);
    assert.equal(agentCalls(root).length, 1);
    assert.ok(lastRun(root).events.some((e) => e.type === "autofix:attempt" && e.fixType === "lintFix"));
  });

  it("with rectify disabled, failing tests never pass; the work is set aside, not lost", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [buggy("delta")] },
      config: withExecution({ rectify: { enabled: false, maxAttempts: 2 } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.ok(agentCalls(root).every((c) => c.role === "implement"));
    assert.equal(agentCalls(root).length, 3, "one implement session per tier");
    assert.match(git(root, "stash", "list"), /gantry\(US-1\) failed work/);
    assert.doesNotMatch(git(root, "log", "--format=%s"), /gantry\(US-1\)/);
  });

  it("with autofix disabled, a failing lint never passes", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [unlinted("eps")] },
      config: withExecution({ autofix: { enabled: false, maxAttempts: 2 } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.ok(
      lastRun(root)
        .ledger.filter((e) => e.gate === "review")
        .every((e) => e.verdict === "fail"),
    );
  });

  it("a test command that runs zero tests, or prints nothing readable, does not pass", async () => {
    for (const test of [
      "node --test --test-reporter=spec --test-name-pattern=nomatch test/",
      "echo all good",
    ]) {
      const config = baseConfig();
      (config.quality as { commands: Record<string, string> }).commands.test = test;
      const root = makeProject({
        stories: [story("US-1")],
        plan: { "US-1": [good("zeta")] },
        config: withRectifyOff(config),
      });
      const result = await gantry(root, ["run", "--feature", "f"]);
      assert.equal(result.code, 1, `${test}: ${result.stdout}`);
      assert.equal(prdStories(root)["US-1"]?.status, "failed");
      const verdicts = lastRun(root)
        .ledger.filter((e) => e.gate === "verify")
        .map((e) => e.verdict);
      assert.ok(verdicts.length > 0 && verdicts.every((v) => v === "unverified"), `${test}: ${verdicts}`);
    }
  });

  it("an agent that never fixes anything is stopped by the caps", async () => {
    const config = withExecution({ rectify: { enabled: true, maxAttempts: 2 }, maxStageRetries: 5 });
    // Different wrong values each time, so the early stop on no progress does not hide the attempt cap.
    const root = makeProject({
      stories: [story("US-1"), story("US-2", { dependencies: ["US-1"] })],
      plan: {
        "US-1": [
          buggy("eta", 3),
          { write: { ...moduleWithTest("eta", 3, 2), "test/eta2.test.js": passingTest("eta2") } },
          buggy("eta", 5),
        ],
      },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1);
    const calls = agentCalls(root);
    const tiers = 3;
    const bound = tiers * (1 + 2 + 2);
    assert.ok(calls.length <= bound, `${calls.length} agent calls, bound ${bound}`);
    assert.ok(calls.length >= tiers, "each tier was tried");
    assert.deepEqual([...new Set(calls.map((c) => c.tier))], ["fast", "balanced", "powerful"]);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.equal(prdStories(root)["US-2"]?.status, "blocked");
    const { events } = lastRun(root);
    assert.ok(events.some((e) => e.type === "escalation:exhausted"));
  });

  it("exit code 2 with one line naming file and path for a bad config; nothing is written", async () => {
    const config = baseConfig();
    (config.execution as Record<string, unknown>).maxStageRetries = "five";
    const root = makeProject({ stories: [story("US-1")], plan: {}, config });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.match(
      result.stderr,
      /\.gantry\/config\.json: execution\.maxStageRetries: expected number, received string/,
    );
    assert.doesNotMatch(result.stderr, /\n\s+at /);
    assert.equal(existsSync(join(root, ".gantry", "runs")), false);
  });

  it("a second run while one is running is refused; a stale lock is taken over", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [good("theta")] } });
    writeFileSync(join(root, ".gantry", "lock"), `${process.pid}\n`);
    const refused = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /another gantry run \(pid \d+\) is working on this repository/);
    writeFileSync(join(root, ".gantry", "lock"), "999999\n");
    const taken = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(taken.code, 0, taken.stderr);
    assert.equal(existsSync(join(root, ".gantry", "lock")), false);
  });
});

function withRectifyOff(config: Record<string, unknown>) {
  config.execution = { ...(config.execution as object), rectify: { enabled: false, maxAttempts: 0 } };
  config.routing = { tiers: ["fast"] };
  return config;
}
