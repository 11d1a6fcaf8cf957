import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { baseConfig, gantry, git, lastRun, makeProject, passingTest, prdStories } from "./harness.js";

const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  routing: { complexity: "simple" },
  ...extra,
});
const files = (name: string) => ({
  write: { [`src/${name}.js`]: `export const ${name} = 1;\n`, [`test/${name}.test.js`]: passingTest(name) },
});

describe("gantry commands", { concurrency: 2 }, () => {
  it("validate accepts a good project and names the file and path of a bad PRD, exit 2, nothing written", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: {} });
    const ok = await gantry(root, ["validate"]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /ok: config and 1 feature\(s\), 1 stories/);
    const prdPath = join(root, ".gantry/features/f/prd.json");
    writeFileSync(
      prdPath,
      JSON.stringify({ userStories: [story("US-1"), story("US-2", { dependencies: ["US-9"] })] }),
    );
    const before = readFileSync(prdPath, "utf8");
    for (const args of [["validate"], ["run", "--feature", "f", "--allow-dirty"]]) {
      const bad = await gantry(root, args);
      assert.equal(bad.code, 2, `${args.join(" ")}: ${bad.stderr}`);
      assert.equal(bad.stderr.trim().split("\n").length, 1);
      assert.match(
        bad.stderr,
        /\.gantry\/features\/f\/prd\.json: userStories\[1\]\.dependencies\[0\]: depends on "US-9"/,
      );
    }
    assert.equal(readFileSync(prdPath, "utf8"), before);
    assert.equal(existsSync(join(root, ".gantry/runs")), false);
  });

  it("usage errors exit 2: unknown option, missing --feature, unknown feature, unknown --story", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: {} });
    for (const args of [
      ["run", "--feature", "f", "--bogus"],
      ["run"],
      ["run", "--feature", "nope"],
      ["run", "--feature", "f", "--story", "US-7"],
      ["schema", "nope"],
    ]) {
      const result = await gantry(root, args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
    }
  });

  it("--dry-run prints the plan and writes nothing; status and schema print what they say", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2", { dependencies: ["US-1"] })],
      plan: {},
    });
    const dry = await gantry(root, ["run", "--feature", "f", "--dry-run", "--json"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(
      JSON.parse(dry.stdout).plan.map((p: { id: string; tier: string }) => `${p.id}:${p.tier}`),
      ["US-1:fast", "US-2:fast"],
    );
    assert.deepEqual(
      JSON.parse(dry.stdout).plan.map((p: { dependencies: string[] }) => p.dependencies),
      [[], ["US-1"]],
    );
    const text = await gantry(root, ["run", "--feature", "f", "--dry-run"]);
    assert.match(text.stdout, /^US-2 .*\) {2}after US-1$/m, "the plan says what a story waits for");
    assert.doesNotMatch(text.stdout, /^US-1 .*after/m);
    assert.equal(existsSync(join(root, ".gantry/runs")), false);
    assert.equal(git(root, "status", "--porcelain"), "");
    const status = await gantry(root, ["status", "--feature", "f"]);
    assert.match(status.stdout, /f: 2 pending/);
    const schema = await gantry(root, ["schema", "prd"]);
    assert.equal(JSON.parse(schema.stdout).$id, "https://gantry.dev/schemas/prd.schema.json");
  });

  it("--json prints only the machine-readable summary on stdout", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [files("one")] } });
    const result = await gantry(root, ["run", "--feature", "f", "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout);
    assert.deepEqual(parsed.stories, [
      { id: "US-1", title: "Story US-1", status: "passed", attempts: 1, costUsd: 0 },
    ]);
    assert.equal(parsed.summary.passed, 1);
  });

  it("reaching execution.maxIterations pauses the run: exit 3, the rest left for the next run", async () => {
    const config = baseConfig();
    config.execution = { ...(config.execution as object), maxIterations: 1 };
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: { "US-1": [files("one")], "US-2": [files("two")] },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 3, result.stdout + result.stderr);
    assert.match(result.stdout, /run paused: execution\.maxIterations \(1\) reached/);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.notEqual(prdStories(root)["US-2"]?.status, "passed");
  });

  it("a dirty working tree is refused unless --allow-dirty", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: { "US-1": [files("one")] } });
    writeFileSync(join(root, "notes.txt"), "mine\n");
    const refused = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /uncommitted changes \(notes\.txt\); commit or stash them, or pass --allow-dirty/,
    );
    const allowed = await gantry(root, ["run", "--feature", "f", "--allow-dirty"]);
    assert.equal(allowed.code, 0, allowed.stderr);
  });
});

describe("deferred regression", () => {
  it("runs the full suite once after the stories, fails the story whose test fails with story:fail (reports, hook), exit 1", async () => {
    const config = baseConfig();
    (config.quality as { commands: Record<string, string> }).commands.testScoped =
      "node --test --test-reporter=spec {{files}}";
    const hookLog = join(mkdtempSync(join(tmpdir(), "gantry-hook-")), "fail.jsonl");
    config.hooks = {
      "on-story-fail": `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").appendFileSync(${JSON.stringify(hookLog)}, s+"\\n"))'`,
    };
    config.reporters = ["default", "junit", "markdown"];
    const readsData = `import assert from "node:assert/strict";\nimport { readFileSync } from "node:fs";\nimport { test } from "node:test";\ntest("one reads data", () => {\n  assert.equal(JSON.parse(readFileSync("data/values.json", "utf8")).limit, 1);\n});\n`;
    const root = makeProject({
      stories: [story("US-1"), story("US-2")],
      plan: {
        "US-1": [
          {
            write: {
              "src/one.js": "export const one = 1;\n",
              "test/one.test.js": readsData,
              "data/values.json": '{"limit": 1}\n',
            },
          },
        ],
        // US-2's scoped tests pass, but its data change breaks US-1's test, which its imports do not reach.
        "US-2": [
          {
            write: {
              "src/two.js": "export const two = 2;\n",
              "test/two.test.js": passingTest("two"),
              "data/values.json": '{"limit": 2}\n',
            },
          },
        ],
      },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.match(
      result.stderr,
      /deferred-regression failed: full suite TEST_FAILURE \(1 failed\); the failing tests are reached by US-1/,
    );
    assert.equal(prdStories(root)["US-1"]?.status, "failed");
    assert.equal(prdStories(root)["US-2"]?.status, "passed");
    assert.match(git(root, "log", "--format=%s"), /gantry\(US-1\)/, "the commit stands: nothing is lost");

    const { events, dir } = lastRun(root);
    const ends = events
      .filter((e) => e.type === "story:complete" || e.type === "story:fail")
      .map((e) => `${e.type} ${(e.story as { id: string }).id}`);
    assert.deepEqual(ends, ["story:complete US-1", "story:complete US-2", "story:fail US-1"]);
    const fail = events.find((e) => e.type === "story:fail");
    assert.match(String(fail?.reason), /^deferred-regression: full suite TEST_FAILURE/);
    assert.equal((fail?.story as { status?: string } | undefined)?.status, "failed");

    const junit = readFileSync(join(dir, "junit.xml"), "utf8");
    const us1 = junit.slice(junit.indexOf('<testsuite name="US-1'), junit.indexOf('<testsuite name="US-2'));
    assert.match(us1, /<property name="status" value="failed"\/>/);
    assert.match(us1, /<failure /);
    assert.match(readFileSync(join(dir, "report.md"), "utf8"), /\| US-1 \| Story US-1 \| failed \|/);

    const hooks = readFileSync(hookLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      hooks.map((h) => [h.hook, h.story.id]),
      [["on-story-fail", "US-1"]],
    );
  });
});

describe("run:error", () => {
  it("a git command failing mid-run stops the run with run:error code GIT, announced to the on-error hook", async () => {
    const config = baseConfig();
    const hookLog = join(mkdtempSync(join(tmpdir(), "gantry-hook-")), "error.jsonl");
    config.hooks = {
      "on-error": `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>require("fs").appendFileSync(${JSON.stringify(hookLog)}, s+"\\n"))'`,
    };
    // The agent breaks the repository under gantry by deleting its objects (a corrupted HEAD would be a tamper,
    // which pauses the run instead): git fails from then on. The sandbox would keep it out of .git, so this run
    // has the checks alone.
    config.agent = { ...(config.agent as object), sandbox: "off" };
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [{ write: { "src/a.js": "export const a = 1;\n" }, sh: "rm -rf .git/objects/??" }] },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 70, result.stdout + result.stderr);
    const errors = lastRun(root).events.filter((e) => e.type === "run:error");
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal((errors[0]?.error as { code?: string } | undefined)?.code, "GANTRY_E_GIT");
    assert.match(String((errors[0]?.error as { message?: string } | undefined)?.message), /^git /);
    const hooks = readFileSync(hookLog, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      hooks.map((h) => [h.hook, h.error.code]),
      [["on-error", "GANTRY_E_GIT"]],
    );
  });
});
