// Edge cases for node's test runner, vitest, jest and mocha. Where a sample is not a captured file
// from test/fixtures/parsers it is synthetic: built from a real fixture or written after the
// runner's documented output, and labelled so.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parseTestOutput } from "../../../src/verification/parsers/registry.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/${path}`, import.meta.url), "utf8");
const counts = (text: string, runner?: string) => {
  const p = parseTestOutput(text, runner ? { runner } : {});
  return [p.runner, p.status, p.passed, p.failed, p.skipped];
};

describe("node's test runner", () => {
  test("watch mode: the last summary counts (synthetic: two real runs one after the other)", () => {
    const text = `${fixture("node-test/fail.spec.log")}\n${fixture("node-test/pass.spec.log")}`;
    assert.deepEqual(counts(text), ["node-test", "PASS", 4, 0, 0]);
  });

  test("cancelled tests count as failed", () => {
    // Synthetic, after node's spec reporter summary.
    const text = [
      "✖ slow (100ms)",
      "  'test timed out after 100ms'",
      "ℹ tests 2",
      "ℹ pass 1",
      "ℹ fail 0",
      "ℹ cancelled 1",
      "ℹ skipped 0",
      "ℹ todo 0",
    ];
    const parsed = parseTestOutput(text.join("\n"));
    assert.deepEqual([parsed.status, parsed.passed, parsed.failed], ["TEST_FAILURE", 1, 1]);
    assert.equal(parsed.failures[0]?.message, "test timed out after 100ms");
  });

  test("the dot reporter is UNPARSED but keeps the failures it lists", () => {
    const parsed = parseTestOutput(fixture("node-test/fail.dot.log"));
    assert.equal(parsed.status, "UNPARSED");
    assert.match(parsed.reason ?? "", /dot reporter prints no counts/);
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["concatenates", "throws on bad input"],
    );
  });

  test("the junit reporter's broken file has no load error text, so it stays a test failure", () => {
    // Real behaviour: node's junit reporter drops the child process's stderr with the SyntaxError.
    const parsed = parseTestOutput(fixture("node-test/broken.junit.xml"));
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.equal(parsed.failures[0]?.file, "/tmp/capture/proj/node/broken/math.test.mjs");
  });
});

describe("vitest", () => {
  test("a rerun's summary replaces the first one, with only its own failures", () => {
    const parsed = parseTestOutput(fixture("vitest/rerun.watch.log"));
    assert.deepEqual([parsed.passed, parsed.failed], [3, 1]);
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["throws on bad input"],
    );
  });

  test("a failed run followed by a passing rerun is a PASS (synthetic: two real runs)", () => {
    const text = `${fixture("vitest/fail.default.log")}\n${fixture("vitest/pass.default.log")}`;
    const parsed = parseTestOutput(text);
    assert.deepEqual([parsed.status, parsed.passed, parsed.failures.length], ["PASS", 4, 0]);
  });

  test("unhandled errors fail a run whose tests all passed (synthetic, after vitest's summary)", () => {
    const text = [
      " RUN  v3.2.7 /app",
      "",
      "⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯",
      "",
      " Test Files  1 passed (1)",
      "      Tests  3 passed (3)",
      "     Errors  1 error",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.match(parsed.failures[0]?.message ?? "", /1 unhandled error/);
  });
});

describe("jest", () => {
  test("the closing 'Summary of all failing tests' does not double the failures (synthetic)", () => {
    const run = fixture("jest/fail.default.log");
    const [body, tail] = run.split("Test Suites:");
    const text = `${body}Summary of all failing tests\n${body}Test Suites:${tail}`;
    const parsed = parseTestOutput(text);
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["strings > concatenates", "throws on bad input"],
    );
  });

  test("console blocks are not failures (synthetic, after jest's console output)", () => {
    const text = [
      "PASS src/a.test.js",
      "  ● Console",
      "",
      "    console.log",
      "      hello",
      "",
      "Test Suites: 1 passed, 1 total",
      "Tests:       2 passed, 2 total",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.deepEqual([parsed.status, parsed.passed, parsed.failures.length], ["PASS", 2, 0]);
  });

  test("watch mode: the last summary counts (synthetic: two real runs)", () => {
    const text = `${fixture("jest/pass.default.log")}\n${fixture("jest/fail.default.log")}`;
    assert.deepEqual(counts(text), ["jest", "TEST_FAILURE", 3, 2, 0]);
  });
});

describe("mocha", () => {
  test("hook failures and titles over several lines (synthetic, after mocha's spec reporter)", () => {
    const text = [
      "  db",
      '    1) "before all" hook for "reads"',
      "",
      "  0 passing (5ms)",
      "  1 failing",
      "",
      "  1) db",
      '       "before all" hook for "reads":',
      "     Error: connect ECONNREFUSED 127.0.0.1:5432",
      "      at TCPConnectWrap.afterConnect (node:net:1555:16)",
      "      at Context.<anonymous> (test/db.spec.js:4:11)",
      "",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual(parsed.failures, [
      {
        name: 'db > "before all" hook for "reads"',
        file: "test/db.spec.js",
        message: "Error: connect ECONNREFUSED 127.0.0.1:5432",
      },
    ]);
  });

  test("its TAP output parses as generic TAP, or as mocha when named", () => {
    assert.deepEqual(counts(fixture("mocha/fail.tap.log")), ["tap", "TEST_FAILURE", 3, 2, 0]);
    assert.deepEqual(counts(fixture("mocha/fail.tap.log"), "mocha"), ["mocha", "TEST_FAILURE", 3, 2, 0]);
  });
});
