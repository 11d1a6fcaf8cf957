import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { listParsers, parserNames, parseTestOutput } from "../../../src/verification/parsers/registry.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/${path}`, import.meta.url), "utf8");
const reading = (text: string, runner?: string) => {
  const p = parseTestOutput(text, runner ? { runner } : {});
  return { runner: p.runner, status: p.status, passed: p.passed, failed: p.failed, skipped: p.skipped };
};

/** Real fixtures whose summary sits at the end of the log. */
const TAIL_SUMMARISED = [
  "node-test/fail.spec.log",
  "node-test/skip.tap.log",
  "vitest/fail.default.log",
  "jest/fail.default.log",
  "mocha/fail.spec.log",
  "pytest/fail.default.log",
  "pytest/skip.q.log",
  "cargo/fail.default.log",
  "go/fail.v.log",
  "tap/fail.perl.log",
];

describe("parser registry", () => {
  test("lists its parsers, most specific first", () => {
    assert.deepEqual(listParsers(), [
      "go",
      "cargo",
      "pytest",
      "vitest",
      "jest",
      "node-test",
      "mocha",
      "junit",
      "tap",
    ]);
    assert.deepEqual([...parserNames], listParsers());
  });

  test("an unknown runner name throws, naming the valid ones", () => {
    assert.throws(
      () => parseTestOutput("x", { runner: "karma" }),
      /unknown test runner "karma"; valid runners: go, cargo, .*tap/,
    );
  });

  test("empty or unrecognised output is UNPARSED from runner unknown", () => {
    const empty = parseTestOutput("  \n");
    assert.deepEqual([empty.runner, empty.status, empty.executed], ["unknown", "UNPARSED", 0]);
    assert.match(empty.reason ?? "", /^the test output is empty: .*pytest -p no:terminal/);
    assert.equal(parseTestOutput("").reason, empty.reason);
    const other = parseTestOutput("Compiling...\nDone in 2s\n");
    assert.equal(other.runner, "unknown");
    assert.equal(other.status, "UNPARSED");
    assert.equal(
      other.reason,
      "no known test runner output was recognised (tried: go, cargo, pytest, vitest, jest, node-test, mocha, junit, tap)",
    );
    assert.deepEqual(other.failures, []);
  });

  test("a named runner that cannot read the output says so", () => {
    const parsed = parseTestOutput(fixture("jest/fail.default.log"), { runner: "vitest" });
    assert.equal(parsed.status, "UNPARSED");
    assert.equal(parsed.runner, "vitest");
  });

  test("CRLF line ends and GitHub Actions prefixes do not change the reading", () => {
    for (const file of TAIL_SUMMARISED) {
      const raw = fixture(file);
      const ci = [
        "2024-05-01T10:00:00.0000000Z ##[group]Run npm test",
        ...raw
          .split("\n")
          .map((line, i) => `2024-05-01T10:00:${String(i % 60).padStart(2, "0")}.1234567Z ${line}`),
        "2024-05-01T10:01:00.0000000Z ##[endgroup]",
      ].join("\r\n");
      assert.deepEqual(reading(ci), reading(raw), file);
    }
  });

  test("a log whose head was cut off still reads from its summary", () => {
    for (const file of TAIL_SUMMARISED) {
      const raw = fixture(file);
      const lines = raw.split("\n");
      // Drop the first fifth, and start in the middle of a line.
      const kept = `tial line cut in the middle\n${lines.slice(Math.floor(lines.length / 5)).join("\n")}`;
      const cut = reading(kept);
      const whole = reading(raw);
      if (file.startsWith("cargo/") || file.startsWith("go/") || file.startsWith("tap/")) {
        // Summed formats lose the binaries / packages / lines that were cut off, but never invent any.
        assert.equal(cut.runner, whole.runner, file);
        assert.ok(cut.passed <= whole.passed && cut.failed <= whole.failed, file);
      } else {
        assert.deepEqual(
          [cut.runner, cut.passed, cut.failed, cut.skipped],
          [whole.runner, whole.passed, whole.failed, whole.skipped],
          file,
        );
      }
    }
  });

  test("a log cut after its summary is UNPARSED, not guessed from the failures it still shows", () => {
    const lines = fixture("node-test/fail.spec.log").split("\n");
    const tail = lines.slice(lines.indexOf("ℹ skipped 0")).join("\n");
    const parsed = parseTestOutput(tail);
    assert.deepEqual([parsed.runner, parsed.status, parsed.executed], ["node-test", "UNPARSED", 0]);
  });

  test("JUnit XML printed after console output is still found", () => {
    const parsed = parseTestOutput(fixture("junit/mocha-xunit.console.xml"));
    assert.deepEqual([parsed.runner, parsed.passed, parsed.failed], ["junit", 1, 1]);
  });

  test("lines that defeat naive regular expressions are read in one pass", () => {
    // Each would take minutes with a backtracking pattern; here they must simply finish.
    const long = "a ".repeat(200_000);
    const inputs = [
      `${long}\n`,
      `${"=".repeat(300_000)} in 1s\n`,
      `test ${"x".repeat(300_000)} ... \n`,
      `<testsuite name="${"a".repeat(200_000)}`,
      `${"\t".repeat(200_000)}--- FAIL: x\n`,
      `FAIL ${"./".repeat(100_000)}\n`,
      `\x1b]${"x".repeat(300_000)}\n`,
      `${"x\r".repeat(100_000)}\n`,
      `ok 1 - ${"# ".repeat(100_000)}\n1..1\n`,
      `  1) ${"a".repeat(200_000)}\n`,
      `${"\n".repeat(200_000)}x`,
      `${" \t\n".repeat(100_000)}Test Files`,
      `<testsuite>${"<a ".repeat(100_000)}`,
      `<testsuite>${'<testcase name="'.repeat(50_000)}`,
    ];
    for (const input of inputs) {
      for (const runner of [undefined, ...parserNames]) {
        const parsed = parseTestOutput(input, runner ? { runner } : {});
        assert.ok(parsed.status, runner ?? "auto");
      }
    }
  });

  test("the runner the command calls decides; a summary printed for another runner is not consulted", () => {
    const nodeFails = fixture("node-test/fail.spec.log");
    const faked = `${CARGO_PASS}\n${nodeFails}`;
    const named = parseTestOutput(faked, { command: "node --test --test-reporter=spec test/" });
    assert.deepEqual(
      [named.runner, named.status, named.passed, named.failed],
      ["node-test", "TEST_FAILURE", 2, 2],
    );
    // An explicit runner wins over the command's.
    assert.equal(parseTestOutput(faked, { runner: "cargo", command: "node --test" }).runner, "cargo");
    // A command that names no runner leaves it to detection.
    assert.equal(parseTestOutput(fixture("cargo/pass.default.log"), { command: "npm test" }).runner, "cargo");
  });

  test("two different runners' summaries in one output are UNPARSED, naming both", () => {
    for (const [text, runners] of [
      [
        `${CARGO_PASS}\n${fixture("node-test/fail.spec.log")}`,
        /cargo: 5 passed, 0 failed; node-test: 2 passed, 2 failed/,
      ],
      [
        `${fixture("pytest/pass.q.log")}\n${fixture("vitest/pass.default.log")}`,
        /pytest: 4 passed, 0 failed; vitest: 4 passed, 0 failed/,
      ],
      [
        `${fixture("node-test/exitzero.spec.log")}\n${CARGO_PASS}`,
        /cargo: 5 passed, 0 failed; node-test: 0 passed, 0 failed/,
      ],
    ] as const) {
      const parsed = parseTestOutput(text, { command: "npm test" });
      assert.equal(parsed.status, "UNPARSED");
      assert.equal(parsed.runner, "unknown");
      assert.deepEqual([parsed.executed, parsed.passed, parsed.failed, parsed.failures], [0, 0, 0, []]);
      assert.match(parsed.reason ?? "", /^two different runners' summaries in one output \(/);
      assert.match(parsed.reason ?? "", runners);
      assert.match(parsed.reason ?? "", /name the runner in the test command \(quality\.commands\.test\)$/);
    }
  });

  test("a runner's own JUnit or TAP output is not a second runner", () => {
    assert.equal(parseTestOutput(fixture("node-test/pass.tap.log")).runner, "node-test");
    assert.equal(parseTestOutput(fixture("mocha/fail.tap.log"), { command: "mocha -R tap" }).runner, "mocha");
    assert.equal(parseTestOutput(fixture("vitest/stdout.junit.xml")).runner, "vitest");
    // A TAP stream printed next to a runner's summary does not count against it either.
    const extraTap = `${fixture("jest/pass.default.log")}\n1..2\nok 1 - a\nok 2 - b\n`;
    assert.deepEqual([parseTestOutput(extraTap).runner, parseTestOutput(extraTap).status], ["jest", "PASS"]);
  });

  test("a runner that recognises its output but cannot read counts yields to one that can", () => {
    const parsed = parseTestOutput(`ℹ tests 3\n${CARGO_PASS}`);
    assert.deepEqual([parsed.runner, parsed.status, parsed.passed], ["cargo", "PASS", 5]);
    const dot = parseTestOutput(fixture("node-test/pass.dot.log"));
    assert.deepEqual([dot.runner, dot.status], ["node-test", "UNPARSED"]);
    assert.match(dot.reason ?? "", /dot reporter/);
  });
});

const CARGO_PASS =
  "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s";
