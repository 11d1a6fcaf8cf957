import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { vitestParser } from "../../../src/verification/parsers/vitest.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/vitest/${path}`, import.meta.url), "utf8");
const parse = (lines: string[]) => vitestParser.parse(lines.join("\n"));
const reading = (lines: string[]) => {
  const p = parse(lines);
  return { status: p.status, passed: p.passed, failed: p.failed, skipped: p.skipped, executed: p.executed };
};

describe("vitest's text reporter, line by line", () => {
  test("counts come from the Tests line after a Test Files line, with skipped and todo as skipped", () => {
    assert.deepEqual(
      reading([" Test Files  2 passed (2)", "      Tests  1 failed | 3 passed | 2 skipped | 1 todo (7)"]),
      { status: "TEST_FAILURE", passed: 3, failed: 1, skipped: 3, executed: 4 },
    );
    assert.deepEqual(reading(["Test Files  1 passed (1)", "Tests  4 passed (4)"]), {
      status: "PASS",
      passed: 4,
      failed: 0,
      skipped: 0,
      executed: 4,
    });
  });

  test("a Tests line with no Test Files line before it, or one space wide, is not a summary", () => {
    assert.equal(parse(["      Tests  4 passed (4)"]).status, "UNPARSED");
    assert.equal(parse([" Test Files 1 passed (1)", "      Tests  4 passed (4)"]).status, "UNPARSED");
    assert.equal(parse([" Test Files  1 passed (1)", "      Tests 4 passed (4)"]).status, "UNPARSED");
    assert.equal(
      parse([" Test Files  1 passed (1)", "      Tests  4 passed (4)"]).reason,
      undefined,
      "a readable summary has no reason",
    );
    assert.equal(parse(["nothing here"]).reason, "no vitest summary (Test Files / Tests) found");
  });

  test("only the first Tests line after a Test Files line counts", () => {
    assert.deepEqual(
      reading([" Test Files  1 passed (1)", "      Tests  4 passed (4)", "      Tests  1 failed (1)"]),
      { status: "PASS", passed: 4, failed: 0, skipped: 0, executed: 4 },
    );
  });

  test("no test files found is NO_TESTS in vitest's words", () => {
    const parsed = parse(["No test files found, exiting with code 1"]);
    assert.deepEqual([parsed.status, parsed.reason], ["NO_TESTS", "vitest found no test files"]);
    assert.equal(parse(["  No test files found, exiting with code 1"]).status, "UNPARSED");
  });

  test("`Tests  no tests` with no failed file is NO_TESTS: vitest ran no test", () => {
    const parsed = parse([" Test Files  no tests", "      Tests  no tests"]);
    assert.deepEqual([parsed.status, parsed.reason], ["NO_TESTS", "vitest ran no test"]);
  });

  test("a failed file with no failure listed is a failure of the file", () => {
    const parsed = parse([" Test Files  1 failed | 1 passed (2)", "      Tests  3 passed (3)"]);
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual(parsed.failures, [{ name: "(test file)", message: "a test file failed" }]);
    assert.equal(parse([" Test Files  0 failed | 1 passed (1)", "      Tests  3 passed (3)"]).status, "PASS");
  });

  test("the Errors line after the summary adds one unhandled-errors failure", () => {
    const errors = (line: string) =>
      parse([" Test Files  1 passed (1)", "      Tests  3 passed (3)", line]).failures;
    assert.deepEqual(errors("     Errors  2 errors"), [
      { name: "(unhandled errors)", message: "2 unhandled error(s) during the run" },
    ]);
    assert.deepEqual(errors("     Errors  1 error"), [
      { name: "(unhandled errors)", message: "1 unhandled error(s) during the run" },
    ]);
    assert.deepEqual(errors("     Errors 2 errors"), []);
    assert.deepEqual(errors("     Errors  0 errors"), []);
    // Before any summary an Errors line belongs to nothing.
    assert.equal(
      parse(["     Errors  2 errors", " Test Files  1 passed (1)", "      Tests  3 passed (3)"]).status,
      "PASS",
    );
    // A new Test Files line starts a new summary without the last one's errors.
    assert.equal(
      parse([
        " Test Files  1 passed (1)",
        "      Tests  3 passed (3)",
        "     Errors  1 error",
        " Test Files  1 passed (1)",
        "      Tests  3 passed (3)",
      ]).status,
      "PASS",
    );
  });

  test("FAIL headings give the failure's file, name and message", () => {
    const parsed = parse([
      " FAIL  a.test.ts > group > fails",
      "AssertionError: expected 1 to be 2",
      "second line",
      "",
      " FAIL  plain title",
      "",
      "Error: later",
      " ❯ a.test.ts:3:4",
      " FAIL  b.test.ts > broken",
      " FAIL  Tests failed. Watching for file changes...",
      " Test Files  1 failed (1)",
      "      Tests  3 failed (3)",
    ]);
    assert.deepEqual(parsed.failures, [
      {
        name: "group > fails",
        file: "a.test.ts",
        message: "AssertionError: expected 1 to be 2\nsecond line",
      },
      { name: "plain title", message: "Error: later" },
      { name: "broken", file: "b.test.ts", message: "failed" },
    ]);
  });

  test("a failure's message stops at the stack, a code frame, a rule, the next heading, or eight lines", () => {
    const message = (after: string[]) =>
      parse([" FAIL  a.test.ts > t", ...after, "", " Test Files  1 failed (1)", "      Tests  1 failed (1)"])
        .failures[0]?.message;
    assert.equal(message(["Error: x", "    at f (a.js:1:1)", "more"]), "Error: x");
    assert.equal(message(["Error: x", " ❯ a.test.ts:1:1", "more"]), "Error: x");
    assert.equal(message(["Error: x", "⎯⎯⎯⎯", "more"]), "Error: x");
    assert.equal(message(["Error: x", " FAIL  a.test.ts > u", "more"]), "Error: x");
    const nine = Array.from({ length: 9 }, (_, i) => `line ${i}`);
    assert.equal(message(nine), nine.slice(0, 8).join("\n"));
    assert.equal(message(["", "", "Error: after blanks"]), "Error: after blanks");
    const far = [...Array.from({ length: 40 }, () => ""), "Error: too far"];
    assert.equal(message(far), "failed");
  });

  test("a suite that failed to load is a BUILD_ERROR naming the file and the error", () => {
    const parsed = vitestParser.parse(fixture("loaderr.default.log"));
    assert.equal(parsed.status, "BUILD_ERROR");
    assert.equal(
      parsed.reason,
      "math.test.js did not load: Error: Cannot find module './missing-module.js' imported from '/tmp/capture/proj/vitest/loaderr/math.test.js'",
    );
    // Two files that did not load are both named.
    const two = parse([
      " FAIL  a.test.js [ a.test.js ]",
      "Error: Cannot find module './x.js'",
      " FAIL  b.test.js [ b.test.js ]",
      "SyntaxError: Unexpected token",
      " Test Files  2 failed (2)",
      "      Tests  no tests",
    ]);
    assert.equal(
      two.reason,
      "a.test.js did not load: Error: Cannot find module './x.js'; b.test.js did not load: SyntaxError: Unexpected token",
    );
    // A suite that failed for another reason (a hook) is a failure of the file, not a load error.
    const hook = parse([
      " FAIL  a.test.js [ a.test.js ]",
      "Error: beforeAll hook timed out",
      " Test Files  1 failed (1)",
      "      Tests  2 passed (2)",
    ]);
    assert.equal(hook.status, "TEST_FAILURE");
    assert.deepEqual(
      hook.failures.map((f) => [f.name, f.file]),
      [["a.test.js", "a.test.js"]],
    );
  });

  test("a load error found a few lines under the heading still counts, further down it does not", () => {
    const under = (gap: number) =>
      parse([
        " FAIL  a.test.js [ a.test.js ]",
        "Error: wrapped",
        ...Array.from({ length: gap }, () => " ❯ frame"),
        "Caused by: Error: Failed to load url ./x.js",
        " Test Files  1 failed (1)",
        "      Tests  no tests",
      ]).status;
    assert.equal(under(3), "BUILD_ERROR");
    assert.equal(under(4), "TEST_FAILURE");
  });

  test("load errors and failures belong to the summary that follows them", () => {
    const parsed = parse([
      " FAIL  a.test.js [ a.test.js ]",
      "Error: Cannot find module './x.js'",
      " Test Files  1 failed (1)",
      "      Tests  no tests",
      " Test Files  1 passed (1)",
      "      Tests  2 passed (2)",
    ]);
    assert.deepEqual([parsed.status, parsed.passed, parsed.failures.length], ["PASS", 2, 0]);
  });

  test("counts: the number before each word, the total in parentheses at the end", () => {
    assert.deepEqual(reading([" Test Files  1 passed (1)", "      Tests  12 passed (12)"]).passed, 12);
    assert.deepEqual(
      reading([" Test Files  1 passed (1)", "      Tests  2 failed|10 passed (12)"]).failed,
      2,
    );
  });
});

describe("vitest detection and format choice", () => {
  test("it recognises its banner, its summary, its JUnit report and its no-files line", () => {
    for (const text of [
      " RUN  v3.2.7 /app",
      " RUN v3.2.7 /app",
      " DEV  v1.0.0 /app",
      " RERUN  2.0.0",
      "Test Files  1 passed (1)",
      "\t Test Files  2 failed (2)",
      '<testsuites name="vitest tests" tests="1">',
      "No test files found, exiting with code 1",
    ]) {
      assert.equal(vitestParser.detect(text), true, text);
    }
    for (const text of [
      "RUN  v3.2.7",
      " RUN   v3",
      " RUN  x3.2",
      "Test Files 1 passed (1)",
      "Test Files  no tests",
      "x Test Files  1 passed",
      '<testsuites name="jest tests">',
      "No test files found",
      "Tests  4 passed (4)",
    ]) {
      assert.equal(vitestParser.detect(text), false, text);
    }
  });

  test("JUnit XML is read as JUnit, unless a text summary is there too", () => {
    const junit = vitestParser.parse(fixture("fail.junit.xml"));
    assert.deepEqual([junit.status, junit.passed, junit.failed], ["TEST_FAILURE", 3, 2]);
    assert.ok(
      junit.failures.every((f) => f.file),
      "JUnit failures carry their file",
    );
    const generic = vitestParser.parse(
      '<testsuites>\n<testsuite name="a" tests="1"><testcase name="x"/></testsuite>\n</testsuites>',
    );
    assert.deepEqual([generic.status, generic.passed], ["PASS", 1]);
    const withSummary = vitestParser.parse(
      ["<testsuites>", " Test Files  1 passed (1)", "      Tests  4 passed (4)"].join("\n"),
    );
    assert.deepEqual([withSummary.status, withSummary.passed], ["PASS", 4]);
  });

  test("a JUnit file-level failure with a load error is a BUILD_ERROR, with ' > ' restored in names", () => {
    assert.equal(vitestParser.parse(fixture("loaderr.junit.xml")).status, "BUILD_ERROR");
    assert.equal(vitestParser.parse(fixture("fail.junit.xml")).failures[0]?.name.includes("&gt;"), false);
  });

  test("JUnit names get their ' > ' back; the file is the classname, else the suite, else none", () => {
    assert.deepEqual(
      vitestParser.parse(fixture("fail.junit.xml")).failures.map((f) => [f.name, f.file]),
      [
        ["strings > concatenates", "math.test.js"],
        ["throws on bad input", "math.test.js"],
      ],
    );
    const xml = (testcase: string, suite = "") =>
      vitestParser.parse(
        `<testsuites name="vitest tests">\n<testsuite name="${suite}" tests="1" failures="1">\n${testcase}\n</testsuite>\n</testsuites>`,
      ).failures;
    const failing = (attrs: string) => `<testcase ${attrs}><failure message="boom">boom</failure></testcase>`;
    assert.deepEqual(xml(failing('name="t"'), "s.test.js"), [
      { name: "t", file: "s.test.js", message: "boom" },
    ]);
    assert.deepEqual(xml(failing('classname="c.test.js" name="t"'), "s.test.js")[0]?.file, "c.test.js");
    assert.deepEqual(xml(failing('name="t"')), [{ name: "t", message: "boom" }]);
  });

  test("a JUnit load error needs a file-level failure and a load error in its first 4000 characters", () => {
    const xml = (testcase: string) =>
      vitestParser.parse(
        `<testsuites name="vitest tests">\n<testsuite name="a.test.js" tests="1" failures="1">\n${testcase}\n</testsuite>\n</testsuites>`,
      ).status;
    const fileLevel = (text: string) =>
      `<testcase classname="a.test.js" name="a.test.js"><failure message="x">${text}</failure></testcase>`;
    assert.equal(xml(fileLevel("Error: Cannot find module './x.js'")), "BUILD_ERROR");
    assert.equal(xml(fileLevel("Error: a hook failed")), "TEST_FAILURE");
    assert.equal(xml(fileLevel(`${"x".repeat(3990)} Cannot find module`)), "TEST_FAILURE");
    assert.equal(
      xml(
        `<testcase classname="a.test.js" name="t"><failure message="x">Cannot find module './x.js'</failure></testcase>`,
      ),
      "TEST_FAILURE",
    );
  });

  test("detection is anchored to the start of a line", () => {
    for (const text of [
      "x RUN  v3.2.7 /app",
      "xNo test files found, exiting with code 1",
      "x Test Files  1 passed (1)",
    ]) {
      assert.equal(vitestParser.detect(text), false, text);
    }
    assert.equal(vitestParser.detect(" Test Files  12 passed (12)"), true);
  });

  test("a JUnit document without vitest's name is JUnit only when no text summary is printed", () => {
    const generic =
      '<testsuites name="x">\n<testsuite name="a" tests="1"><testcase classname="a" name="y"/></testsuite>\n</testsuites>';
    assert.deepEqual([vitestParser.parse(generic).status, vitestParser.parse(generic).passed], ["PASS", 1]);
    const summary = [" Test Files  1 passed (1)", "      Tests  4 passed (4)"];
    for (const [extra, passed] of [
      [summary, 4],
      [["   Test Files  1 passed (1)", "      Tests  4 passed (4)"], 4],
      [["x Test Files  1 passed (1)"], 1],
      [["Test Files 1 passed (1)"], 1],
    ] as const) {
      assert.equal(vitestParser.parse([generic, ...extra].join("\n")).passed, passed, extra.join(" / "));
    }
    // vitest's own name is looked for in the first 64 KiB only.
    const late = [...summary, "x".repeat(70_000), '<testsuites name="vitest tests"></testsuites>'].join("\n");
    assert.equal(vitestParser.parse(late).passed, 4);
  });

  test("a failure message is cut at lines that start like a stack, a rule or a heading, not ones that contain them", () => {
    const message = (lines: string[]) =>
      parse([" FAIL  a.test.ts > t", ...lines, "", " Test Files  1 failed (1)", "      Tests  1 failed (1)"])
        .failures[0]?.message;
    assert.equal(
      message(["Error: failed at step 2", "x ⎯ y", "x FAIL  z", " FAIL single"]),
      "Error: failed at step 2\nx ⎯ y\nx FAIL  z\nFAIL single",
    );
    assert.equal(message(["Error: x", " FAIL  b.test.ts"]), "Error: x");
  });

  test("counts read a number and a word however they are spaced", () => {
    assert.equal(parse([" Test Files  1 passed (1)", "      Tests  3   passed (3)"]).passed, 3);
  });
});
