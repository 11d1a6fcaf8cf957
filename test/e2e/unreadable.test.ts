import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { baseConfig, failingTest, gantry, lastRun, makeProject, prdStories, story } from "./harness.js";

/**
 * A run whose tests go from failing to unreadable: the test command is the project's own script, which the
 * story's rectify session rewrites to hide the runner's output behind "all good" (exit 0). gantry must fail
 * closed and say why in the words of the status: the log line, the ledger detail, the rectify prompt and
 * rectify's early stop all name UNPARSED, and the stop never claims "did not reduce the failures".
 */
describe("an unreadable test verdict is named as such", () => {
  it("TEST_FAILURE then UNPARSED: rectify stops naming both statuses; log, ledger and prompt say UNPARSED", async () => {
    const prompts = mkdtempSync(join(tmpdir(), "gantry-unreadable-prompts-"));
    const config = baseConfig() as { quality: { commands: Record<string, string> }; routing: unknown };
    config.quality.commands.test = "sh run-tests.sh";
    config.routing = { tiers: ["fast"] };
    const root = makeProject({
      stories: [story("US-1")],
      files: { "run-tests.sh": "node --test --test-reporter=spec test/\n" },
      plan: {
        "US-1": [
          { write: { "src/us1.js": "export const us1 = 1;\n", "test/us1.test.js": failingTest("us1 adds") } },
          {
            write: { "run-tests.sh": 'node --test test/ >/dev/null 2>&1\necho "all good"\n' },
            sh: `cp "$GANTRY_PROMPT_FILE" ${JSON.stringify(join(prompts, "rectify-1.txt"))}`,
          },
          { sh: `cp "$GANTRY_PROMPT_FILE" ${JSON.stringify(join(prompts, "rectify-2.txt"))}` },
        ],
      },
      config,
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    const out = result.stdout + result.stderr;
    assert.equal(prdStories(root)["US-1"]?.passes, false, out);
    assert.match(
      out,
      /US-1 tests \(full suite: no testScoped command\): TEST_FAILURE \(1 passed, 1 failed/,
      "no testScoped: the log says the full suite ran and why",
    );
    assert.match(
      out,
      /US-1 tests \(full suite: no testScoped command\): UNPARSED \([^)]*\) — the test output could not be read \(no known test runner output was recognised.*\); it begins: "all good"/,
    );
    assert.match(
      out,
      /US-1 rectify (?:fail )?→ escalate: tests went from TEST_FAILURE \(1 failed\) to UNPARSED: the test output could not be read/,
    );
    assert.match(
      out,
      /US-1 FAILED: every tier failed; last: tests went from TEST_FAILURE \(1 failed\) to UNPARSED/,
    );
    assert.doesNotMatch(out, /did not reduce the failures/);

    const verdicts = lastRun(root).ledger.filter((e) => e.gate === "verify");
    const unparsed = verdicts.find((e) => (e.detail as { status: string }).status === "UNPARSED");
    assert.ok(unparsed, `an UNPARSED verify verdict in the ledger: ${JSON.stringify(verdicts)}`);
    assert.equal(unparsed.verdict, "unverified");
    const detail = unparsed.detail as { reason: string; outputHead: string[]; scope: string };
    assert.match(detail.reason, /^UNPARSED: the test output could not be read/);
    assert.deepEqual(detail.outputHead, ["all good"]);
    assert.equal(detail.scope, "full suite: no testScoped command");

    // The first rectify worked from the failing test; no second one ran after the output became unreadable.
    const prompt = readFileSync(join(prompts, "rectify-1.txt"), "utf8");
    assert.match(prompt, /us1 adds/);
    assert.throws(() => readFileSync(join(prompts, "rectify-2.txt")), /ENOENT/);
  });
});
