import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";
import {
  baseConfig,
  gantry,
  git,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  readJsonl,
  story,
} from "./harness.js";

/**
 * A stand-in for Claude Code (`claude -p --output-format json --model M ...`, the prompt on stdin): what it
 * writes depends on the model it is given (`$FAKE_CLAUDE_DIR/plan.json`: model → {write, cost}, or a list of
 * them played in order, the last repeating). Each call is
 * recorded (argv, model, GANTRY_* role and tier, and whether each `watch` file existed when it started) to
 * `$FAKE_CLAUDE_DIR/calls.jsonl`, and it prints Claude Code's JSON result with `total_cost_usd` and `usage`.
 */
const FAKE_CLAUDE = `#!/usr/bin/env node
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
const args = process.argv.slice(2);
if (args[0] === "--version") {
  process.stdout.write("9.9.9 (Claude Code, fake)\\n");
  process.exit(0);
}
if (args[0] === "auth") {
  process.stdout.write(JSON.stringify({ loggedIn: true, authMethod: "fake" }) + "\\n");
  process.exit(0);
}
const dir = process.env.FAKE_CLAUDE_DIR;
const plan = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8"));
const model = args[args.indexOf("--model") + 1];
const log = join(dir, "calls.jsonl");
const before = existsSync(log) ? readFileSync(log, "utf8").split("\\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
const acts = [plan.models[model] ?? {}].flat();
const act = acts[Math.min(before.filter((c) => c.model === model).length, acts.length - 1)];
const prompt = readFileSync(0, "utf8");
const sees = Object.fromEntries((plan.watch ?? []).map((file) => [file, existsSync(file)]));
const env = process.env;
const call = { argv: args, model, role: env.GANTRY_ROLE, tier: env.GANTRY_TIER, story: env.GANTRY_STORY_ID, promptChars: prompt.length, sees };
appendFileSync(log, JSON.stringify(call) + "\\n");
for (const [path, content] of Object.entries(act.write ?? {})) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}
const result = {
  type: "result",
  subtype: "success",
  is_error: false,
  duration_ms: 12,
  num_turns: 2,
  result: "Done with " + model,
  session_id: "00000000-0000-0000-0000-000000000000",
  total_cost_usd: act.cost ?? 0.01,
  usage: { input_tokens: 1000, cache_creation_input_tokens: 200, cache_read_input_tokens: 300, output_tokens: 150 },
};
process.stdout.write(JSON.stringify(result) + "\\n");
`;

interface FakeCall {
  argv: string[];
  model: string;
  role: string;
  tier: string;
  story: string;
  sees: Record<string, boolean>;
}

interface Act {
  write?: Record<string, string>;
  cost?: number;
}

interface Plan {
  models: Record<string, Act | Act[]>;
  watch?: string[];
}

/** A directory with the fake `claude` (to put first on PATH), its plan and its call log. */
function fakeClaude(plan: Plan): { env: NodeJS.ProcessEnv; calls: () => FakeCall[] } {
  const dir = mkdtempSync(join(tmpdir(), "gantry-fake-claude-"));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "claude"), FAKE_CLAUDE);
  chmodSync(join(dir, "bin", "claude"), 0o755);
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  return {
    env: { PATH: `${join(dir, "bin")}${delimiter}${process.env.PATH ?? ""}`, FAKE_CLAUDE_DIR: dir },
    calls: () => {
      try {
        return readJsonl<FakeCall>(join(dir, "calls.jsonl"));
      } catch {
        return [];
      }
    },
  };
}

/** `src/calc.js` and a test that passes only when calc() returns 2. */
const calc = (value: number): Record<string, string> => ({
  "src/calc.js": `export function calc() {\n  return ${value};\n}\n`,
  "test/calc.test.js": passingTest(
    "calc",
    `const { calc } = await import("../src/calc.js");\n  assert.equal(calc(), 2);`,
  ),
});
const WRONG = { write: calc(3), cost: 0.01 };
const RIGHT = { write: calc(2), cost: 0.01 };

/** The claude agent with its default models; rectify and autofix off, so each pass is one session. */
function claudeConfig(routing: Record<string, unknown> = {}, execution: Record<string, unknown> = {}) {
  const config = baseConfig();
  config.agent = { default: "claude", timeoutSeconds: 30 };
  config.execution = {
    ...(config.execution as object),
    rectify: { enabled: false, maxAttempts: 2 },
    autofix: { enabled: false, maxAttempts: 2 },
    ...execution,
  };
  config.routing = { tiers: ["fast", "balanced", "powerful"], ...routing };
  return config;
}

const ofType = (events: Record<string, unknown>[], type: string) => events.filter((e) => e.type === type);

describe("escalation and cost through a fake claude CLI, end to end", { concurrency: 3 }, () => {
  it("fails on fast and balanced, passes on powerful: haiku → sonnet → opus, two tier changes", async () => {
    const fake = fakeClaude({
      models: {
        haiku: { write: { ...calc(3), "src/haiku-note.js": "export const n = 1;\n" } },
        sonnet: WRONG,
        opus: RIGHT,
      },
      watch: ["src/haiku-note.js"],
    });
    const root = makeProject({ stories: [story("US-1")], plan: {}, config: claudeConfig() });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.equal(prdStories(root)["US-1"]?.attempts, 3);

    const calls = fake.calls();
    assert.deepEqual(
      calls.map((c) => `${c.tier}:${c.model}:${c.role}`),
      ["fast:haiku:implement", "balanced:sonnet:implement", "powerful:opus:implement"],
    );
    assert.deepEqual(calls[0]?.argv, [
      "-p",
      "--output-format",
      "json",
      "--model",
      "haiku",
      "--permission-mode",
      "bypassPermissions",
    ]);
    assert.equal(
      calls[2]?.sees["src/haiku-note.js"],
      true,
      "by default the next tier starts from the current tree",
    );

    const { events } = lastRun(root);
    const start = ofType(events, "story:start")[0];
    assert.equal(start?.tier, "fast");
    assert.deepEqual(start?.routing, {
      complexity: "simple",
      testStrategy: "test-after",
      reason: "set in the PRD",
    });
    assert.deepEqual(
      ofType(events, "escalation:tier-change").map((e) => `${e.from}→${e.to}`),
      ["fast→balanced", "balanced→powerful"],
    );
    assert.ok(ofType(events, "escalation:tier-change").every((e) => e.setAside === undefined));
    assert.deepEqual(
      ofType(events, "agent:end").map((e) => `${e.tier}:${e.model}:${e.costBasis}`),
      ["fast:haiku:exact", "balanced:sonnet:exact", "powerful:opus:exact"],
    );
    assert.equal(ofType(events, "escalation:exhausted").length, 0);
    const metrics = ofType(events, "story:complete")[0]?.metrics as { tier: string; attempts: number };
    assert.deepEqual([metrics.tier, metrics.attempts], ["powerful", 3]);
    assert.equal(git(root, "show", "HEAD:src/calc.js"), calc(2)["src/calc.js"]);
  });

  it("every tier failing: escalation:exhausted, the story fails, its dependant is blocked", async () => {
    const fake = fakeClaude({ models: { haiku: WRONG, sonnet: WRONG, opus: WRONG } });
    const root = makeProject({
      stories: [story("US-1"), story("US-2", { dependencies: ["US-1"] })],
      plan: {},
      config: claudeConfig(),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 1, result.stderr + result.stdout);
    assert.deepEqual(
      fake.calls().map((c) => c.model),
      ["haiku", "sonnet", "opus"],
    );
    assert.ok(fake.calls().every((c) => c.story === "US-1"));
    const stories = prdStories(root);
    assert.equal(stories["US-1"]?.status, "failed");
    assert.equal(stories["US-2"]?.status, "blocked");
    const { events } = lastRun(root);
    assert.equal(ofType(events, "escalation:tier-change").length, 2);
    const exhausted = ofType(events, "escalation:exhausted");
    assert.deepEqual(
      exhausted.map((e) => [e.storyId, e.attempts]),
      [["US-1", 3]],
    );
    const fail = ofType(events, "story:fail")[0];
    assert.match(String(fail?.reason), /^every tier failed; last: /);
    assert.match(git(root, "stash", "list"), /gantry\(US-1\) failed work/);
  });

  it("stops starting sessions at execution.costLimitUsd and exits 3, with the exact total", async () => {
    const fake = fakeClaude({
      models: {
        haiku: { ...WRONG, cost: 0.03 },
        sonnet: { ...WRONG, cost: 0.03 },
        opus: { ...RIGHT, cost: 0.03 },
      },
    });
    const root = makeProject({
      stories: [story("US-1")],
      plan: {},
      config: claudeConfig({}, { costLimitUsd: 0.05 }),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 3, result.stderr + result.stdout);
    // $0 < $0.05 → first session; $0.03 < $0.05 → second; $0.06 ≥ $0.05 → no third.
    assert.deepEqual(
      fake.calls().map((c) => c.model),
      ["haiku", "sonnet"],
    );
    const { events, dir } = lastRun(root);
    const cost = readJsonl<{ costUsd: number; basis: string; model: string }>(join(dir, "cost.jsonl"));
    assert.deepEqual(
      cost.map((c) => `${c.model}:${c.costUsd}:${c.basis}`),
      ["haiku:0.03:exact", "sonnet:0.03:exact"],
    );
    const complete = ofType(events, "run:complete")[0] as {
      summary: { costUsd: number; costBasis: string; paused: number };
      exitCode: number;
    };
    assert.ok(Math.abs(complete.summary.costUsd - 0.06) < 1e-9, String(complete.summary.costUsd));
    assert.equal(complete.summary.costBasis, "exact");
    assert.equal(complete.summary.paused, 1);
    assert.equal(complete.exitCode, 3);
    assert.match(String(ofType(events, "run:pause")[0]?.reason), /cost limit reached: \$0\.06 of \$0\.05/);
    assert.equal(prdStories(root)["US-1"]?.status, "paused");
  });

  it("past the cost cap the next story does not start: no story:start, it stays pending; exit 3", async () => {
    const fake = fakeClaude({ models: { haiku: { ...RIGHT, cost: 0.06 } } });
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: {},
      config: claudeConfig({}, { costLimitUsd: 0.05 }),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 3, result.stderr + result.stdout);
    assert.equal(fake.calls().length, 1);
    const { events } = lastRun(root);
    assert.deepEqual(
      ofType(events, "story:start").map((e) => (e.story as { id: string }).id),
      ["US-1"],
    );
    assert.match(String(ofType(events, "run:pause")[0]?.reason), /cost limit reached: \$0\.06 of \$0\.05/);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.equal(prdStories(root)["US-2"]?.status, "pending");
  });

  it("routing.attemptsPerTier and tierAttempts give each tier that many passes before it escalates", async () => {
    const fake = fakeClaude({ models: { haiku: WRONG, sonnet: WRONG, opus: WRONG } });
    const root = makeProject({
      stories: [story("US-1")],
      plan: {},
      config: claudeConfig({ attemptsPerTier: 2, tierAttempts: { balanced: 3 } }),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 1, result.stderr + result.stdout);
    assert.deepEqual(
      fake.calls().map((c) => c.model),
      ["haiku", "haiku", "sonnet", "sonnet", "sonnet", "opus", "opus"],
    );
    const { events } = lastRun(root);
    assert.deepEqual(
      ofType(events, "escalation:tier-change").map((e) => `${e.from}→${e.to}`),
      ["fast→balanced", "balanced→powerful"],
    );
    assert.deepEqual(
      ofType(events, "escalation:exhausted").map((e) => e.attempts),
      [7],
    );
    assert.equal(prdStories(root)["US-1"]?.attempts, 7);
  });

  it("attemptsPerTier 2: a second pass at the same tier can pass without escalating", async () => {
    const fake = fakeClaude({ models: { haiku: [WRONG, RIGHT], sonnet: RIGHT } });
    const root = makeProject({
      stories: [story("US-1")],
      plan: {},
      config: claudeConfig({ attemptsPerTier: 2, tiers: ["fast", "balanced"] }),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.deepEqual(
      fake.calls().map((c) => c.model),
      ["haiku", "haiku"],
    );
    const { events } = lastRun(root);
    assert.equal(ofType(events, "escalation:tier-change").length, 0);
    const metrics = ofType(events, "story:complete")[0]?.metrics as { tier: string; attempts: number };
    assert.deepEqual([metrics.tier, metrics.attempts], ["fast", 2]);
  });

  it("escalationStart base-commit: a new tier starts from the story's base commit, the old work stashed", async () => {
    const fake = fakeClaude({
      models: {
        haiku: { write: { ...calc(3), "src/haiku-note.js": "export const n = 1;\n" } },
        sonnet: WRONG,
        opus: RIGHT,
      },
      watch: ["src/haiku-note.js", "src/calc.js"],
    });
    const root = makeProject({
      stories: [story("US-1")],
      plan: {},
      config: claudeConfig({ escalationStart: "base-commit" }),
    });
    const result = await gantry(root, ["run", "--feature", "f"], { env: fake.env });
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const calls = fake.calls();
    assert.deepEqual(
      calls.map((c) => [c.model, c.sees["src/haiku-note.js"], c.sees["src/calc.js"]]),
      [
        ["haiku", false, false],
        ["sonnet", false, false],
        ["opus", false, false],
      ],
    );
    const { events } = lastRun(root);
    const changes = ofType(events, "escalation:tier-change");
    assert.equal(changes.length, 2);
    assert.ok(changes.every((e) => typeof e.setAside === "string" && /^[0-9a-f]{40}$/.test(e.setAside)));
    const stashes = git(root, "stash", "list");
    assert.match(stashes, /gantry\(US-1\) fast tier work, set aside for balanced/);
    assert.match(stashes, /gantry\(US-1\) balanced tier work, set aside for powerful/);
    assert.equal(
      git(root, "show", `${String(changes[0]?.setAside)}^3:src/haiku-note.js`),
      "export const n = 1;\n",
      "the fast tier's new file is kept in its stash",
    );
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.equal(git(root, "ls-tree", "HEAD", "src/haiku-note.js"), "", "the commit has only opus's work");
  });
});
