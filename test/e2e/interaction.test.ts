import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RESPONDER } from "../interaction/helpers.js";
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

const moduleWithTest = (name: string, value: number, decl = "const"): Record<string, string> => ({
  [`src/${name}.js`]: `export function ${name}() {\n  ${decl} v = ${value};\n  return v;\n}\n`,
  [`test/${name}.test.js`]: passingTest(
    name,
    `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}(), 2);`,
  ),
});
const good = (name: string): AgentSession => ({ write: moduleWithTest(name, 2) });
const buggy = (name: string): AgentSession => ({ write: moduleWithTest(name, 3) });
const unlinted = (name: string): AgentSession => ({ write: moduleWithTest(name, 2, "let") });
const broken: AgentSession = { exit: 1 };

function configWith(interaction: Record<string, unknown>, patch: Record<string, unknown> = {}) {
  const config: Record<string, unknown> = { ...baseConfig(), ...patch, interaction };
  if (patch.execution) config.execution = { ...(baseConfig().execution as object), ...patch.execution };
  return config;
}

const interactionEvents = (events: Record<string, unknown>[]) =>
  events
    .filter((e) => typeof e.type === "string" && (e.type as string).startsWith("interaction:"))
    .map((e) =>
      e.type === "interaction:request"
        ? `ask ${e.trigger} ${e.storyId ?? "-"} [${(e.options as string[]).join(",")}] fallback=${e.fallback}`
        : `answer ${e.trigger} ${e.action} by ${e.respondedBy}`,
    );

describe("interaction triggers through the built CLI", { concurrency: 3, timeout: 120_000 }, () => {
  it("story-ambiguity: a story without acceptance criteria is skipped (fallback skip); the next one runs", async () => {
    const root = makeProject({
      stories: [story("US-1", { acceptanceCriteria: [] }), story("US-2")],
      plan: { "US-1": [good("alpha")], "US-2": [good("beta")] },
      config: configWith({ triggers: { "story-ambiguity": { fallback: "skip" } } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, "a skipped story is not a story done: exit 1");
    assert.equal(prdStories(root)["US-1"]?.status, "skipped");
    assert.equal(prdStories(root)["US-2"]?.status, "passed");
    assert.deepEqual(
      agentCalls(root).map((c) => c.story),
      ["US-2"],
      "no agent session for the skipped story",
    );
    const { events } = lastRun(root);
    assert.deepEqual(interactionEvents(events), [
      "ask story-ambiguity US-1 [approve,skip,abort] fallback=skip",
      "answer story-ambiguity skip by auto",
    ]);
    // Standard output is no terminal here: the question and its answer are lines of the log, as `gantry logs` shows.
    assert.match(
      result.stdout,
      /^\[\d\d:\d\d:\d\d\] asks \(story-ambiguity, US-1\): US-1 "[^"]*" has no acceptance criteria \[approve, skip, abort\]$/m,
    );
    assert.match(result.stdout, /^\[\d\d:\d\d:\d\d\] answered story-ambiguity: skip \(auto\)$/m);
    // gantry runs counts the skipped story: the run exited 1, and its row says why.
    const runs = JSON.parse((await gantry(root, ["runs", "--json"])).stdout);
    assert.deepEqual(
      runs.map((r: Record<string, unknown>) => [r.status, r.passed, r.failed, r.blocked, r.skipped]),
      [["complete", 1, 0, 0, 1]],
    );
    const skipEvent = events.find((e) => e.type === "story:skip");
    assert.match(String(skipEvent?.reason), /no acceptance criteria; interaction story-ambiguity: skip/);
  });

  it("human-review over the file channel: a second process answers retry, the story runs again from its first tier", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [broken] },
      config: configWith(
        {
          channel: "file",
          file: { pollMs: 50 },
          triggers: { "human-review": { timeoutSeconds: 30 } },
        },
        { routing: { tiers: ["fast", "balanced"] } },
      ),
    });
    const responder = spawn(process.execPath, ["-e", RESPONDER, join(root, ".gantry", "runs"), "e2e", "50"], {
      stdio: "ignore",
    });
    try {
      const result = await gantry(root, ["run", "--feature", "f"]);
      assert.equal(result.code, 1, result.stderr + result.stdout);
    } finally {
      responder.kill();
    }
    assert.deepEqual(
      agentCalls(root).map((c) => c.tier),
      ["fast", "balanced", "fast", "balanced"],
      "every tier, then every tier once more after retry",
    );
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.equal(prdStories(root)["US-1"]?.attempts, 4);
    const { events } = lastRun(root);
    assert.deepEqual(interactionEvents(events), [
      "ask human-review US-1 [approve,skip,retry,abort] fallback=skip",
      "answer human-review retry by file:e2e",
      "ask human-review US-1 [approve,skip,abort] fallback=skip",
      "answer human-review approve by file:e2e",
    ]);
    assert.equal(events.filter((e) => e.type === "escalation:exhausted").length, 2);
    assert.equal(events.filter((e) => e.type === "story:fail").length, 1, "the story fails once, at the end");
  });

  it("max-retries: a pass ended by MAX_STAGE_RETRIES gets one more pass (fallback retry), then fails", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [buggy("gamma")] },
      config: configWith(
        { triggers: { "max-retries": { fallback: "retry" } } },
        { execution: { maxStageRetries: 0 } },
      ),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, result.stderr + result.stdout);
    assert.deepEqual(
      agentCalls(root).map((c) => `${c.role}@${c.tier}`),
      // With no retry left, rectify ends the pass instead of spending a session nothing would verify.
      ["implement@fast", "implement@fast"],
    );
    const { events, ledger } = lastRun(root);
    assert.deepEqual(interactionEvents(events), [
      "ask max-retries US-1 [approve,skip,retry,abort] fallback=retry",
      "answer max-retries retry by auto",
      "ask max-retries US-1 [approve,skip,abort] fallback=approve",
      "answer max-retries approve by auto",
    ]);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.ok(
      ledger.every((e) => e.verdict !== "pass" || e.gate !== "verify"),
      "no verify ever passed",
    );
  });

  it("review-gate skip: a failed review skips the story before autofix; its work is set aside", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: { "US-1": [unlinted("delta")], "US-2": [good("epsilon")] },
      config: configWith({ triggers: { "review-gate": { fallback: "skip" } } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, "a skipped story is not a story done: exit 1");
    assert.equal(prdStories(root)["US-1"]?.status, "skipped");
    assert.equal(prdStories(root)["US-2"]?.status, "passed");
    assert.deepEqual(
      agentCalls(root).map((c) => `${c.story}:${c.role}`),
      ["US-1:implement", "US-2:implement"],
      "no autofix session",
    );
    const { events, ledger } = lastRun(root);
    assert.ok(ledger.some((e) => e.storyId === "US-1" && e.gate === "review" && e.verdict === "fail"));
    assert.ok(!ledger.some((e) => e.storyId === "US-1" && e.gate === "review" && e.verdict === "pass"));
    assert.ok(!events.some((e) => e.type === "autofix:attempt"));
    assert.match(git(root, "stash", "list"), /gantry\(US-1\) skipped work/);
    assert.doesNotMatch(
      git(root, "show", "--stat", "HEAD"),
      /delta/,
      "US-1's files are not in US-2's commit",
    );
  });

  it("review-gate abort pauses the run before autofix: the story is paused, exit code 3", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: { "US-1": [unlinted("zeta")], "US-2": [good("eta")] },
      config: configWith({ triggers: { "review-gate": { fallback: "abort" } } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 3, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "paused");
    assert.equal(prdStories(root)["US-2"]?.status, "pending");
    assert.equal(agentCalls(root).length, 1);
    const { events } = lastRun(root);
    const pause = events.find((e) => e.type === "run:pause");
    assert.equal(pause?.reason, "interaction review-gate answered abort");
  });

  it("human-review abort on the last story: the story stays failed and the run ends paused (exit 3)", async () => {
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [broken] },
      config: configWith(
        { triggers: { "human-review": { fallback: "abort" } } },
        { routing: { tiers: ["fast"] } },
      ),
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 3, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    const { events } = lastRun(root);
    assert.equal(
      events.find((e) => e.type === "run:pause")?.reason,
      "interaction human-review answered abort",
    );
  });
});
