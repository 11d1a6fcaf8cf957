import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Ajv2020 from "ajv/dist/2020.js";
import { baseConfig, gantry, makeProject, passingTest, prdStories, REPO } from "./harness.js";

const files = (name: string) => ({
  write: { [`src/${name}.js`]: `export const ${name} = 1;\n`, [`test/${name}.test.js`]: passingTest(name) },
});
const record = (log: string) =>
  `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").appendFileSync(${JSON.stringify(log)}, s))'`;

describe("hooks through gantry run", { concurrency: 2 }, () => {
  it("each hook event fires once per occurrence with a payload valid against the schema; a hostile title stays data", async () => {
    const marker = `/tmp/gantry-pwned-${process.pid}-${Date.now()}`;
    const hostile = `$(touch ${marker}) \`touch ${marker}\` "quoted" 'single'\nnext line`;
    const log = `/tmp/gantry-hooks-${process.pid}-${Date.now()}.jsonl`;
    const config = baseConfig();
    config.hooks = Object.fromEntries(
      [
        "on-start",
        "on-story-start",
        "on-story-complete",
        "on-story-fail",
        "on-story-skip",
        "on-escalate",
        "on-complete",
      ].map((h) => [h, record(log)]),
    );
    config.routing = { tiers: ["fast", "balanced"] };
    const root = makeProject({
      stories: [
        { id: "US-1", title: hostile, routing: { complexity: "simple" } },
        { id: "US-2", title: "never fixed", routing: { complexity: "simple" } },
        { id: "US-3", title: "blocked", dependencies: ["US-2"] },
      ],
      plan: {
        "US-1": [files("one")],
        "US-2": [
          {
            write: {
              "src/two.js": "export const two = 1;\n",
              "test/two.test.js": passingTest("two", "assert.equal(1, 2);"),
            },
          },
        ],
      },
      config: {
        ...config,
        execution: { ...(config.execution as object), rectify: { enabled: false, maxAttempts: 0 } },
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.equal(existsSync(marker), false, "the title was never run as a command");
    const payloads = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const counts: Record<string, number> = {};
    for (const p of payloads) counts[p.hook] = (counts[p.hook] ?? 0) + 1;
    assert.deepEqual(counts, {
      "on-start": 1,
      "on-story-start": 2,
      "on-story-complete": 1,
      "on-escalate": 1,
      "on-story-fail": 1,
      "on-story-skip": 1,
      "on-complete": 1,
    });
    const ajv = new Ajv2020.default({ strict: false });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(REPO, "schemas/hook-payload.schema.json"), "utf8")),
    );
    for (const p of payloads)
      assert.equal(validate(p), true, `${p.hook}: ${JSON.stringify(validate.errors)}`);
    assert.equal(payloads.find((p) => p.hook === "on-story-complete").story.title, hostile);
  });

  it("an on-story-start hook exiting 2 vetoes the story with its stderr; a hanging hook is killed at its timeout", async () => {
    const config = baseConfig();
    config.hooks = {
      "on-story-start": `if [ "$GANTRY_STORY_ID" = "US-1" ]; then echo "frozen by release manager" >&2; exit 2; fi`,
      "on-story-complete": { command: "sleep 120", timeoutMs: 500 },
    };
    const root = makeProject({
      stories: [
        { id: "US-1", title: "a" },
        { id: "US-2", title: "b" },
      ],
      plan: { "US-1": [files("one")], "US-2": [files("two")] },
      config,
    });
    const started = Date.now();
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, "a vetoed story is not a story done: exit 1");
    // Had gantry waited for the hook, the run would take its 120 s: far above a busy machine's run time.
    assert.ok(Date.now() - started < 100_000, "the hanging hook held the run up");
    assert.equal(prdStories(root)["US-1"]?.status, "skipped");
    assert.equal(prdStories(root)["US-2"]?.status, "passed");
    assert.match(result.stdout, /US-1 SKIPPED: vetoed by the on-story-start hook: frozen by release manager/);
    assert.match(result.stderr, /hook on-story-complete .*timed out|hook on-story-complete .*killed/);
  });
});

describe("inline regression and acceptance", { concurrency: 2 }, () => {
  it("inline regression runs the full suite after each story and is a mandatory gate", async () => {
    const config = baseConfig();
    config.execution = { ...(config.execution as object), regression: { mode: "inline" } };
    const root = makeProject({
      stories: [{ id: "US-1", title: "a" }],
      plan: { "US-1": [files("one")] },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const ledger = readFileSync(join(root, ".gantry/runs", readdir(root), "ledger.jsonl"), "utf8");
    assert.match(ledger, /"storyId":"US-1","gate":"regression","verdict":"pass"/);
  });

  it("the acceptance command runs after the stories; its failure fails the run", async () => {
    const config = baseConfig();
    (config.quality as { commands: Record<string, string> }).commands.acceptance =
      "node --test --test-reporter=spec acceptance/";
    const root = makeProject({
      stories: [{ id: "US-1", title: "a" }],
      plan: { "US-1": [files("one")] },
      config,
      files: { "acceptance/flow.test.js": passingTest("end to end", "assert.equal(1, 2);") },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(result.stderr, /acceptance failed: acceptance TEST_FAILURE \(1 failed\)/);
    const ledger = readFileSync(join(root, ".gantry/runs", readdir(root), "ledger.jsonl"), "utf8");
    assert.match(ledger, /"storyId":"\*","gate":"acceptance","verdict":"fail"/);
  });
});

function readdir(root: string): string {
  return readdirSync(join(root, ".gantry/runs")).sort().at(-1) as string;
}
