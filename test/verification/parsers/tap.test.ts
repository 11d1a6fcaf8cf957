// Synthetic TAP samples written for these tests after the TAP 13/14 specification; real TAP from
// perl's Test::More, mocha and node is in test/fixtures/parsers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseTestOutput } from "../../../src/verification/parsers/registry.js";

const tap = (lines: string[]) => parseTestOutput(lines.join("\n"), { runner: "tap" });

describe("TAP", () => {
  test("counts top-level lines; indented subtests are summarised by their parent", () => {
    const parsed = tap([
      "TAP version 14",
      "# Subtest: group",
      "    ok 1 - inner a",
      "    not ok 2 - inner b",
      "    1..2",
      "not ok 1 - group",
      "ok 2 - plain",
      "1..2",
    ]);
    assert.deepEqual([parsed.passed, parsed.failed, parsed.status], [1, 1, "TEST_FAILURE"]);
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["group"],
    );
  });

  test("SKIP and TODO are not executed and TODO failures are not failures", () => {
    const parsed = tap([
      "1..4",
      "ok 1 - a",
      "ok 2 - b # SKIP no db",
      "not ok 3 - c # TODO later",
      "ok 4 # skip",
    ]);
    assert.deepEqual([parsed.passed, parsed.failed, parsed.skipped, parsed.status], [1, 0, 3, "PASS"]);
  });

  test("YAML diagnostics give the message and the location", () => {
    const parsed = tap([
      "TAP version 13",
      "not ok 1 - adds",
      "  ---",
      "  message: 'expected 3, got 4'",
      "  at: 'test/add.js:10:5'",
      "  ...",
      "1..1",
    ]);
    assert.deepEqual(parsed.failures, [{ name: "adds", file: "test/add.js", message: "expected 3, got 4" }]);
  });

  test("an escaped hash stays in the description", () => {
    const parsed = tap(["1..1", "not ok 1 - issue \\# 12 still open"]);
    assert.equal(parsed.failures[0]?.name, "issue # 12 still open");
    assert.equal(parsed.skipped, 0);
  });

  test("Bail out! is a BUILD_ERROR", () => {
    const parsed = tap(["1..3", "ok 1 - a", "Bail out! database is down"]);
    assert.equal(parsed.status, "BUILD_ERROR");
    assert.match(parsed.reason ?? "", /database is down/);
  });

  test("fewer tests than planned is a failure; none at all a BUILD_ERROR", () => {
    const short = tap(["1..3", "ok 1 - a"]);
    assert.equal(short.status, "TEST_FAILURE");
    assert.match(short.failures[0]?.message ?? "", /planned 3 tests but only 1 ran/);
    assert.equal(tap(["1..3", "syntax error at t/x.t line 4"]).status, "BUILD_ERROR");
  });

  test("a trailing plan and several streams in one log", () => {
    const parsed = tap(["ok 1 - a", "ok 2 - b", "1..2", "ok 1 - c", "not ok 2 - d", "1..2"]);
    assert.deepEqual([parsed.passed, parsed.failed, parsed.executed], [3, 1, 4]);
  });

  test("1..0 is NO_TESTS with the skip reason", () => {
    const parsed = tap(["1..0 # SKIP no display"]);
    assert.equal(parsed.status, "NO_TESTS");
    assert.match(parsed.reason ?? "", /no display/);
  });

  test("no plan and no test line is UNPARSED", () => {
    assert.equal(tap(["hello", "world"]).status, "UNPARSED");
  });
});
