import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  agentCalls,
  baseConfig,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
  story,
} from "./harness.js";

/**
 * The between-stories check end to end (built CLI, scripted agent): `build` imports the app and must print
 * "built ok"; `demo` starts a server that never exits, and a detached helper outside its process group,
 * and must print "listening".
 */
const BUILD = `import("./src/app.js").then((m) => {\n  if (m.app() !== "ok") { console.error("app() is " + m.app()); process.exit(1); }\n  console.log("built ok");\n});\n`;
const demo = (marker: string) =>
  [
    'import { spawn } from "node:child_process";',
    'import { createServer } from "node:http";',
    `spawn(process.execPath, ["-e", "/*${marker}*/ setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" }).unref();`,
    `const server = createServer((_q, r) => r.end("ok")).listen(0, () => console.log("listening on " + server.address().port + " ${marker}"));`,
    "",
  ].join("\n");

/** Processes whose command line holds `marker`: what a demo left running. */
function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      if (cmdline.includes(marker) && Number(pid) !== process.pid)
        found.push(`${pid}: ${cmdline.replaceAll("\0", " ")}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function checkedConfig(checks: Record<string, unknown>, sandbox: string): Record<string, unknown> {
  const config = baseConfig();
  const quality = config.quality as { commands: Record<string, unknown> };
  delete quality.commands.lint;
  delete quality.commands.lintFix;
  Object.assign(quality.commands, checks);
  config.routing = { tiers: ["fast"] };
  (config.agent as Record<string, unknown>).sandbox = sandbox;
  return config;
}

describe("the between-stories check (built CLI)", { timeout: 300_000 }, () => {
  it("halts a run whose committed app is broken before any agent session", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: { "US-1": [{ write: { "src/one.js": "export const one = 1;\n" } }] },
      config: checkedConfig({ build: { run: "node build.mjs", expect: "built ok" } }, "auto"),
      files: { "build.mjs": BUILD, "src/app.js": 'export const app = () => "broken";\n' },
    });
    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 200_000 });
    assert.equal(result.code, 3, result.stderr);
    assert.deepEqual(agentCalls(root), []);
    const entries = lastRun(root).ledger.filter((e) => e.gate === "story-check");
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.verdict, "fail");
    assert.equal((entries[0]?.detail as { phase?: string } | undefined)?.phase, "entry");
    assert.match(
      `${result.stdout}${result.stderr}`,
      /story-check before US-1: the committed app fails build \(never printed \/built ok\/; printed "app\(\) is broken"\)/,
    );
    assert.match(
      result.stdout,
      /US-1 story-check before the story: build failed \(never printed \/built ok\/; printed "app\(\) is broken"\)/,
      "the check shows in the progress lines",
    );
    assert.equal(prdStories(root)["US-1"]?.status, "paused");
  });

  it("answered retry, fixes the broken app with one autofix session, then goes on with the story", async () => {
    const config = checkedConfig({ build: { run: "node build.mjs", expect: "built ok" } }, "auto");
    config.interaction = {
      channel: "auto",
      triggers: { "story-check": { enabled: true, fallback: "retry" } },
    };
    const root = makeProject({
      stories: [story("US-1")],
      plan: {
        "US-1": [
          { write: { "src/app.js": 'export const app = () => "ok";\n' } },
          { write: { "src/one.js": "export const one = 1;\n", "test/one.test.js": passingTest("one") } },
        ],
      },
      config,
      files: { "build.mjs": BUILD, "src/app.js": 'export const app = () => "broken";\n' },
    });
    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 200_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      agentCalls(root).map((c) => c.role),
      ["autofix", "implement"],
    );
    const run = lastRun(root);
    const autofix = readdirSync(join(run.dir, "prompts")).find((f) => f.endsWith("-autofix.md"));
    assert.ok(autofix);
    assert.match(readFileSync(join(run.dir, "prompts", autofix), "utf8"), /app\(\) is broken/);
    const requests = run.events.filter((e) => e.type === "interaction:request");
    assert.deepEqual(
      requests.map((e) => e.trigger),
      ["story-check"],
    );
  });

  it("sends a story that breaks the build back to rectify, and kills the demo server and its helper", async () => {
    const marker = `gantry-demo-${randomUUID()}`;
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: {
        "US-1": [
          {
            write: {
              "src/app.js": 'export const app = () => "broken";\n',
              "test/one.test.js": passingTest("one"),
            },
          },
          { write: { "src/app.js": 'export const app = () => "ok";\n' } },
        ],
        "US-2": [
          { write: { "src/two.js": "export const two = 2;\n", "test/two.test.js": passingTest("two") } },
        ],
      },
      config: checkedConfig(
        {
          build: { run: "node build.mjs", expect: "built ok" },
          demo: { run: "node demo.mjs", expect: "listening on \\d+", timeoutSeconds: 30 },
        },
        "off",
      ),
      files: {
        "build.mjs": BUILD,
        "demo.mjs": demo(marker),
        "src/app.js": 'export const app = () => "ok";\n',
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"], { timeoutMs: 280_000 });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      agentCalls(root).map((c) => `${c.story}:${c.role}`),
      ["US-1:implement", "US-1:rectify", "US-2:implement"],
    );
    const run = lastRun(root);
    const checks = run.ledger
      .filter((e) => e.gate === "story-check")
      .map((e) => `${e.storyId}:${(e.detail as { phase: string }).phase}:${e.verdict}`);
    assert.deepEqual(checks, [
      "US-1:entry:pass",
      "US-1:exit:fail",
      "US-1:exit:pass",
      "US-2:entry:pass",
      "US-2:exit:pass",
    ]);
    const rectify = readdirSync(join(run.dir, "prompts")).find((f) => f.endsWith("-rectify.md"));
    assert.ok(rectify);
    const prompt = readFileSync(join(run.dir, "prompts", rectify), "utf8");
    assert.match(prompt, /story-check: build/);
    assert.match(prompt, /app\(\) is broken/);
    // The tests passed: the prompt and the progress lines name the check that failed, not a test failure.
    assert.match(prompt, /^# Fix what story-check found: US-1/m);
    assert.match(prompt, /## What the between-stories check found/);
    assert.doesNotMatch(prompt, /Fix failing tests|The project's tests fail/);
    assert.match(result.stdout, /US-1 rectify retry → verify: rectify attempt 1: story-check: build \(/);
    assert.doesNotMatch(result.stdout, /TEST_FAILURE/);
    assert.deepEqual(processesWith(marker), [], "the demo left processes running");
    // story-check is mandatory here, and its exit verdict is bound to the tree that was committed.
    const check = await gantry(root, ["ledger", "check"]);
    assert.equal(check.code, 0, `${check.stdout}${check.stderr}`);
  });
});
