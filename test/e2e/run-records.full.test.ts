import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { noXmllint, validate, validateEachSuite, xpath } from "../support/junit-schemas.js";
import {
  baseConfig,
  type CliResult,
  failingTest,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  story,
} from "./harness.js";

/** A module and its test; the test passes only when the module returns 2. */
const alpha = (value: number): Record<string, string> => ({
  "src/alpha.js": `export function alpha() {\n  return ${value};\n}\n`,
  "test/alpha.test.js": passingTest(
    "alpha",
    `const { alpha } = await import("../src/alpha.js");\n  assert.equal(alpha(), 2);`,
  ),
});

/**
 * What a run shows and keeps, on one project: story A's first session leaves a failing test, rectify fixes it.
 * The run asks for junit and html only; the terminal still shows progress and the run directory.
 */
describe("what a run shows and keeps (built CLI)", { concurrency: false }, () => {
  let root = "";
  let run: CliResult = { code: null, stdout: "", stderr: "" };
  let runDir = "";

  before(async () => {
    const config = baseConfig();
    config.execution = {
      maxStageRetries: 5,
      rectify: { enabled: true, maxAttempts: 2 },
      autofix: { enabled: false },
      regression: { mode: "off" },
    };
    root = makeProject({
      config,
      stories: [story("A")],
      plan: {
        A: [
          { write: alpha(3), print: "implementing A: wrote alpha\n" },
          { write: alpha(2), print: "rectifying A: alpha returns 2\n" },
        ],
      },
      files: { "test/never.test.js.txt": failingTest("unused") },
    });
    run = await gantry(root, ["run", "--feature", "f", "--reporter", "junit", "--reporter", "html"]);
    runDir = lastRun(root).dir;
  });

  it("file reporters add to the terminal's progress, which shows each stage by its verdict; the run directory is printed", () => {
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /A verify fail → rectify \(/);
    assert.match(run.stdout, /A rectify retry → verify: rectify attempt 1/);
    assert.match(run.stdout, /A verify pass → review \(/);
    assert.match(run.stdout, /A PASSED in [\d.]+s \(2 agent sessions, tier fast\)/);
    assert.ok(!run.stdout.includes("→ continue"));
    const id = runDir.split("/").at(-1) as string;
    assert.match(run.stderr, new RegExp(`^logs and reports: \\.gantry/runs/${id}$`, "m"));
  });

  it("junit: the rectified story that passed has no <failure>, a flakyFailure, and validates against the Surefire schema", {
    skip: noXmllint,
  }, () => {
    const file = join(runDir, "junit.xml");
    const whole = validate(file);
    assert.ok(whole.ok, whole.output);
    const surefire = validateEachSuite(file);
    assert.ok(surefire.ok && surefire.suites === 1, surefire.output);
    assert.equal(xpath(file, "count(//failure)"), "0");
    assert.equal(xpath(file, "string(/testsuites/@failures)"), "0");
    assert.equal(xpath(file, "count(//testcase[@name='verify']/flakyFailure)"), "1");
    assert.match(xpath(file, "string(//testcase[@name='verify']/flakyFailure/stackTrace)"), /alpha/);
  });

  it("each agent session's output is kept under the run directory, linked from agent:end and the HTML report", () => {
    const ends = lastRun(root).events.filter((e) => e.type === "agent:end");
    assert.deepEqual(
      ends.map((e) => e.outputFile),
      ["sessions/A-1-implement.log", "sessions/A-2-rectify.log"],
    );
    assert.match(
      readFileSync(join(runDir, "sessions/A-1-implement.log"), "utf8"),
      /implementing A: wrote alpha/,
    );
    assert.match(
      readFileSync(join(runDir, "sessions/A-2-rectify.log"), "utf8"),
      /rectifying A: alpha returns 2/,
    );
    const page = readFileSync(join(runDir, "report.html"), "utf8");
    assert.ok(page.includes('<a href="sessions/A-1-implement.log">implement</a>'));
    assert.match(
      page,
      /<li class="seg fail"[^>]*title="verify fail → rectify/,
      "the failed verify is a red box",
    );
  });

  it("run.log holds diagnostics as pino JSON lines, not a copy of events.jsonl", () => {
    const file = join(runDir, "run.log");
    const log = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    const events = new Set(
      readFileSync(join(runDir, "events.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { type: string }).type),
    );
    assert.ok(events.has("agent:end"));
    for (const line of log) {
      const entry = JSON.parse(line) as { level: number; time: string; runId: string; msg: string };
      assert.equal(entry.runId, runDir.split("/").at(-1));
      assert.ok([20, 30, 40, 50].includes(entry.level), line);
      assert.match(entry.time, /^\d{4}-\d\d-\d\dT/);
      assert.ok(!events.has(entry.msg), `an event copied into run.log: ${line}`);
    }
  });

  it("gantry runs lists the run: start, status, stories passed and failed, cost, directory", async () => {
    const table = await gantry(root, ["runs"]);
    assert.equal(table.code, 0, table.stderr);
    const id = runDir.split("/").at(-1) as string;
    assert.match(
      table.stdout,
      /^STARTED \(UTC\) +FEATURE +STATUS +PASSED +FAILED +BLOCKED +SKIPPED +COST +DIRECTORY$/m,
    );
    assert.match(
      table.stdout,
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +f +complete +1 +0 +0 +0 +\\$0\\.00 +\\.gantry/runs/${id}$`,
        "m",
      ),
    );
    const json = await gantry(root, ["runs", "-f", "f", "--json"]);
    assert.deepEqual(
      JSON.parse(json.stdout).map((r: { runId: string; passed: number }) => [r.runId, r.passed]),
      [[id, 1]],
    );
  });

  it("run --json has status --json's shape plus the run id, directory and summary; on exit 2 the error as JSON", async () => {
    const status = JSON.parse((await gantry(root, ["status", "--feature", "f", "--json"])).stdout)[0];
    const again = await gantry(root, ["run", "--feature", "f", "--json"]);
    assert.equal(again.code, 0, again.stderr);
    const out = JSON.parse(again.stdout);
    assert.deepEqual(out.stories, status.stories);
    assert.equal(out.feature, "f");
    assert.match(out.runId, /^\d{8}-\d{6}-\w{4}$/);
    assert.ok(existsSync(out.runDir) && out.runDir.endsWith(out.runId));
    assert.equal(out.exitCode, 0);
    assert.equal(out.summary.passed, 0, "nothing was left to run");
    assert.equal(typeof out.costUsd, "number");
    assert.match(again.stderr, /logs and reports: /);

    const bad = await gantry(root, ["run", "--feature", "f", "--json", "--story", "NOPE"]);
    assert.equal(bad.code, 2);
    const error = JSON.parse(bad.stdout);
    assert.equal(error.exitCode, 2);
    assert.equal(error.error.code, "GANTRY_E_NOT_FOUND");
    assert.match(error.error.message, /no story with id NOPE/);
    assert.match(bad.stderr, /^gantry: .*no story with id NOPE/m);
  });

  it("--silent prints no progress; the run directory still is", async () => {
    const quiet = await gantry(root, ["run", "--feature", "f", "--silent", "--reporter", "junit"]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, "");
    assert.match(quiet.stderr, /^logs and reports: \.gantry\/runs\/\S+$/m);
  });
});
