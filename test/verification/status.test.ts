import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ParsedTests } from "../../src/verification/parsers/types.js";
import { judgeStatus, type RunOutcome } from "../../src/verification/status.js";

const parsed = (patch: Partial<ParsedTests> = {}): ParsedTests => ({
  runner: "node-test",
  status: "PASS",
  executed: 3,
  passed: 3,
  failed: 0,
  skipped: 0,
  failures: [],
  ...patch,
});
const exit = (exitCode: number | null, patch: Partial<RunOutcome> = {}): RunOutcome => ({
  exitCode,
  timedOut: false,
  ...patch,
});
const judge = (p: Partial<ParsedTests>, o: RunOutcome) => judgeStatus(parsed(p), o);

describe("judgeStatus: the PASS rule", () => {
  test("exit 0, tests executed, none failed is the only PASS, and it carries no reason", () => {
    assert.deepEqual(judge({}, exit(0)), { status: "PASS" });
    assert.deepEqual(judge({ executed: 1, passed: 1 }, exit(0)), { status: "PASS" });
  });

  test("no executed test is NO_TESTS even with exit 0: one executed test is the least that passes", () => {
    assert.deepEqual(judge({ executed: 0, passed: 0, status: "PASS" }, exit(0)), {
      status: "NO_TESTS",
      reason: "no test was executed",
    });
    assert.equal(judge({ executed: -1, passed: 0 }, exit(0)).status, "NO_TESTS");
    assert.deepEqual(judge({ executed: 0, passed: 0, status: "NO_TESTS", reason: "tests 0" }, exit(0)), {
      status: "NO_TESTS",
      reason: "tests 0",
    });
    // A NO_TESTS reading stays NO_TESTS even when counts were left over.
    assert.equal(judge({ status: "NO_TESTS" }, exit(0)).status, "NO_TESTS");
    assert.equal(judge({ status: "NO_TESTS" }, exit(1)).status, "NO_TESTS");
  });

  test("any failure with a non-zero exit is TEST_FAILURE, whichever of count or status says it", () => {
    assert.deepEqual(judge({ failed: 1, status: "PASS" }, exit(1)), { status: "TEST_FAILURE" });
    assert.deepEqual(judge({ failed: 0, status: "TEST_FAILURE" }, exit(1)), { status: "TEST_FAILURE" });
    assert.deepEqual(judge({ failed: 2, status: "TEST_FAILURE" }, exit(null)), { status: "TEST_FAILURE" });
    // Failures win over a command-not-found exit code and over unreadable or empty readings.
    assert.deepEqual(judge({ failed: 1, status: "UNPARSED" }, exit(127)), { status: "TEST_FAILURE" });
    assert.deepEqual(judge({ failed: 1, executed: 0, status: "NO_TESTS" }, exit(1)), {
      status: "TEST_FAILURE",
    });
  });

  test("failures reported with exit 0 are UNPARSED: the summary disagrees with the exit code", () => {
    for (const p of [
      { failed: 2, passed: 1, status: "TEST_FAILURE" as const },
      { status: "TEST_FAILURE" as const },
    ]) {
      const judged = judge(p, exit(0));
      assert.equal(judged.status, "UNPARSED");
      assert.equal(
        judged.reason,
        `the summary disagrees with the exit code: the output reports ${p.failed ?? 0} failed test(s), but the test command exited with code 0`,
      );
    }
  });

  test("only passes with a non-zero exit are UNPARSED, naming the exit code", () => {
    assert.deepEqual(judge({}, exit(1)), {
      status: "UNPARSED",
      reason:
        "the summary disagrees with the exit code: the output reports 3 passed and no failure, but the test command exited with code 1",
    });
    assert.match(judge({}, exit(101)).reason ?? "", /exited with code 101$/);
    assert.match(judge({}, exit(null)).reason ?? "", /but the test command ended without an exit code$/);
  });

  test("a timeout is never a pass, and says so before anything the output claims", () => {
    const timedOut = exit(0, { timedOut: true });
    for (const p of [{}, { status: "BUILD_ERROR" as const }, { failed: 1 }]) {
      assert.deepEqual(judge(p, timedOut), {
        status: "TIMEOUT",
        reason: "the test command did not finish within its timeout",
      });
    }
  });

  test("a command that could not start is BUILD_ERROR naming why", () => {
    assert.deepEqual(judge({}, exit(0, { spawnError: "ENOENT" })), {
      status: "BUILD_ERROR",
      reason: "the test command could not start: ENOENT",
    });
    assert.equal(judge({}, exit(0, { spawnError: "" })).status, "PASS");
  });

  test("a load error with a non-zero exit is BUILD_ERROR with the parser's reason", () => {
    assert.deepEqual(judge({ status: "BUILD_ERROR", reason: "a.test.js did not load" }, exit(1)), {
      status: "BUILD_ERROR",
      reason: "a.test.js did not load",
    });
    assert.deepEqual(judge({ status: "BUILD_ERROR", failed: 3 }, exit(1)), {
      status: "BUILD_ERROR",
      reason: "the tests did not load",
    });
  });

  test("a load error with exit 0 is UNPARSED: the summary disagrees with the exit code", () => {
    assert.deepEqual(judge({ status: "BUILD_ERROR", reason: "x did not load" }, exit(0)), {
      status: "UNPARSED",
      reason:
        "the summary disagrees with the exit code: the output says the tests did not load (x did not load), but the test command exited with code 0",
    });
  });

  test("exit code 127 without a parsed failure is a command not found", () => {
    const notFound = { status: "BUILD_ERROR", reason: "the test command was not found (exit code 127)" };
    assert.deepEqual(judge({ status: "UNPARSED" }, exit(127)), notFound);
    assert.deepEqual(judge({}, exit(127)), notFound);
    assert.deepEqual(judge({ executed: 0, passed: 0, status: "NO_TESTS" }, exit(127)), notFound);
  });

  test("unreadable output is UNPARSED with the parser's reason, before the zero-test rule", () => {
    assert.deepEqual(judge({ status: "UNPARSED", executed: 0, passed: 0, reason: "dot" }, exit(0)), {
      status: "UNPARSED",
      reason: "dot",
    });
    assert.deepEqual(judge({ status: "UNPARSED", executed: 0, passed: 0 }, exit(1)), {
      status: "UNPARSED",
      reason: "no parser could read the output",
    });
  });
});
