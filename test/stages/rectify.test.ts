import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { VerifyResult } from "../../src/model/verify.js";
import type { Story } from "../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { integrityFailure } from "../../src/stages/gate-feedback.js";
import { rectifyStage } from "../../src/stages/rectify.js";
import { silentLogger } from "../../src/util/logger.js";
import { runContext } from "../pipeline/run-context.js";

const failing = (failCount: number): VerifyResult => ({
  storyId: "US-1",
  strategy: "scoped",
  status: "TEST_FAILURE",
  success: false,
  runner: "node-test",
  passCount: 1,
  failCount,
  skipCount: 0,
  totalCount: failCount + 1,
  failures: Array.from({ length: failCount }, (_, i) => ({ name: `case ${i}`, message: "expected 2" })),
  command: "node --test",
  exitCode: 1,
  durationMs: 10,
  rawOutputTail: "not ok 1",
});

function storyContext(run: RunContext, over: Partial<StoryContext>): StoryContext {
  return {
    run,
    story: run.stories.get("US-1") as Story,
    logger: silentLogger,
    tier: "fast",
    pass: 1,
    baseSha: "",
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
    retriesLeft: 5,
    ...over,
  };
}

/** The agent appends each session's role to a file in the project, so the test sees every session it ran. */
async function rectifyRun() {
  const { run, root, events } = await runContext([{ id: "US-1", title: "one" }], {
    agent: {
      default: "command",
      command: { run: 'echo "$GANTRY_ROLE" >> sessions.log; cat > prompt.txt' },
      timeoutSeconds: 30,
    },
    execution: { rectify: { enabled: true, maxAttempts: 3 } },
  });
  const sessions = () =>
    existsSync(join(root, "sessions.log"))
      ? readFileSync(join(root, "sessions.log"), "utf8").split("\n").filter(Boolean)
      : [];
  return { run, root, events, sessions };
}

describe("rectify stage", () => {
  it("after a rectify that did not reduce the failures, escalates without another agent session", async () => {
    const { run, events, sessions } = await rectifyRun();
    for (const history of [
      [3, 3],
      [2, 4],
    ]) {
      const ctx = storyContext(run, {
        verify: failing(history[1] as number),
        failureHistory: history,
        rectifyAttempts: 1,
      });
      const result = await rectifyStage.execute(ctx);
      assert.deepEqual(result, {
        action: "escalate",
        reason: `scoped tests TEST_FAILURE (${history[1]} failed); the last rectify did not reduce the failures`,
      });
      assert.equal(ctx.rectifyAttempts, 1);
    }
    assert.deepEqual(sessions(), []);
    assert.equal(events.filter(([type]) => type === "rectify:attempt").length, 0);
  });

  it("a stop after a status change names both statuses and what the new one means, never 'did not reduce'", async () => {
    const { run, sessions } = await rectifyRun();
    const unparsed: VerifyResult = {
      ...failing(0),
      status: "UNPARSED",
      reason:
        'UNPARSED: the test output could not be read (no known test runner output was recognised); it begins: "all good"',
      outputHead: ["all good"],
    };
    const stops = async (now: VerifyResult, before: Partial<VerifyResult>) => {
      const ctx = storyContext(run, {
        verify: now,
        failureHistory: [1, Number.MAX_SAFE_INTEGER],
        rectifyAttempts: 1,
        rectifiedFrom: { status: "TEST_FAILURE", failCount: 1, ...before },
      });
      const result = await rectifyStage.execute(ctx);
      return result.action === "escalate" ? result.reason : `not escalated: ${result.action}`;
    };
    assert.equal(
      await stops(unparsed, {}),
      'scoped tests went from TEST_FAILURE (1 failed) to UNPARSED: the test output could not be read (no known test runner output was recognised); it begins: "all good"',
    );
    assert.equal(
      await stops({ ...failing(0), status: "NO_TESTS" }, {}),
      "scoped tests went from TEST_FAILURE (1 failed) to NO_TESTS: no test ran",
    );
    assert.equal(
      await stops(unparsed, { status: "UNPARSED", failCount: 0, reason: unparsed.reason }),
      `scoped tests still ${unparsed.reason} after the last rectify`,
    );
    assert.equal(
      await stops(failing(2), {}),
      "scoped tests TEST_FAILURE (2 failed); the last rectify did not reduce the failures (1 → 2 failed)",
    );
    assert.equal(
      await stops({ ...unparsed, scope: "full suite: no testScoped command" }, {}),
      `tests went from TEST_FAILURE (1 failed) to ${unparsed.reason}`,
      "the scoped step that ran the full suite says tests, not scoped tests",
    );
    assert.deepEqual(sessions(), []);
  });

  it("an unreadable status goes to the rectify agent in its own words, with the lines gantry could not read", async () => {
    const { run, root } = await rectifyRun();
    const ctx = storyContext(run, {
      verify: {
        ...failing(0),
        status: "UNPARSED",
        reason: "UNPARSED: the test output could not be read (no pytest summary line found)",
        outputHead: ["collected 3 items", "weird plugin line"],
      },
    });
    const result = await rectifyStage.execute(ctx);
    assert.equal(result.action, "retry");
    const prompt = readFileSync(join(root, "prompt.txt"), "utf8");
    assert.match(prompt, /## Test status: UNPARSED \(the test output could not be read\)/);
    assert.match(prompt, /no pytest summary line found/);
    assert.match(
      prompt,
      /first lines of the output gantry could not read:\n\n```\ncollected 3 items\nweird plugin line\n```/,
    );
    assert.deepEqual(ctx.rectifiedFrom?.status, "UNPARSED");
  });

  it("a gate that failed after green tests is named as the cause, in the reason, the prompt's title and its instructions", async () => {
    const { run, root, sessions } = await rectifyRun();
    const integrity = integrityFailure(
      { ...failing(0), status: "PASS", success: true, failures: [] },
      {
        verdict: "fail",
        findings: [
          {
            kind: "suppression-added",
            file: "src/a.py",
            line: 3,
            evidence: "new type: ignore (mypy/pyright): x = y  # type: ignore",
          },
          { kind: "marker-added", file: "tests/test_a.py", line: 9, evidence: "new skip: @pytest.mark.skip" },
        ],
        allowed: [],
        counts: [],
        reason: "src/a.py:3: new type: ignore (mypy/pyright); tests/test_a.py:9: new skip",
      },
      "a".repeat(40),
    );
    // The tests went from 2 failures to green; the 2 findings are no count of failing tests.
    const ctx = storyContext(run, {
      verify: integrity,
      failureHistory: [2, 2],
      rectifyAttempts: 1,
      rectifiedFrom: { status: "TEST_FAILURE", failCount: 2 },
    });
    const result = await rectifyStage.execute(ctx);
    assert.deepEqual(result, {
      action: "retry",
      fromStage: "verify",
      reason:
        "rectify attempt 2: test-integrity: src/a.py:3: new type: ignore (mypy/pyright); tests/test_a.py:9: new skip",
    });
    assert.deepEqual(sessions(), ["rectify"]);
    const prompt = readFileSync(join(root, "prompt.txt"), "utf8");
    assert.match(prompt, /^# Fix what test-integrity found: US-1/m);
    assert.match(prompt, /## What test-integrity found\n\nThe tests pass, but your change weakened/);
    assert.match(prompt, /Resolve what test-integrity found above/);
    assert.doesNotMatch(
      prompt,
      /Fix failing tests|The project's tests fail|Make the failing tests above pass/,
    );

    // The same gate again, with as many findings: no progress, said in its own terms.
    const again = storyContext(run, {
      verify: integrity,
      failureHistory: [2, 2],
      rectifyAttempts: 2,
      rectifiedFrom: { status: "TEST_FAILURE", failCount: 2, gate: "test-integrity" },
    });
    const stopped = await rectifyStage.execute(again);
    assert.deepEqual(stopped, {
      action: "escalate",
      reason:
        "test-integrity: src/a.py:3: new type: ignore (mypy/pyright); tests/test_a.py:9: new skip; the last rectify did not reduce what test-integrity found (2 → 2 findings)",
    });
  });

  it("while the failures go down, runs a rectify session and retries from verify", async () => {
    const { run, events, sessions } = await rectifyRun();
    const ctx = storyContext(run, { verify: failing(2), failureHistory: [3, 2], rectifyAttempts: 1 });
    const result = await rectifyStage.execute(ctx);
    assert.deepEqual(result, {
      action: "retry",
      fromStage: "verify",
      reason: "rectify attempt 2: scoped tests TEST_FAILURE (2 failed)",
    });
    assert.deepEqual(sessions(), ["rectify"]);
    await run.bus.flush();
    const attempt = events.find(([type]) => type === "rectify:attempt")?.[1];
    assert.deepEqual([attempt?.attempt, attempt?.maxAttempts], [2, 3]);
  });

  it("stops at rectify.maxAttempts, and with no retry left ends the pass at the retry limit", async () => {
    const { run, sessions } = await rectifyRun();
    const spent = storyContext(run, { verify: failing(1), failureHistory: [3, 2, 1], rectifyAttempts: 3 });
    assert.deepEqual(await rectifyStage.execute(spent), {
      action: "escalate",
      reason: "scoped tests TEST_FAILURE (1 failed) after 3 rectify attempts",
    });
    const noRetry = storyContext(run, {
      verify: failing(1),
      failureHistory: [2, 1],
      rectifyAttempts: 1,
      retriesLeft: 0,
    });
    const result = await rectifyStage.execute(noRetry);
    assert.equal(result.action === "fail" && result.retryLimit, true);
    assert.deepEqual(sessions(), []);
  });
});
