// Synthetic JUnit XML samples, written for these tests after the JUnit report format (Ant/Surefire
// style); the real reports of jest-junit, mocha, vitest, node and pytest are in test/fixtures/parsers.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { scanJUnit } from "../../../src/verification/parsers/junit-xml.js";
import { parseTestOutput } from "../../../src/verification/parsers/registry.js";
import { decodeEntities } from "../../../src/verification/parsers/xml.js";

const junit = (text: string) => parseTestOutput(text, { runner: "junit" });

describe("JUnit XML", () => {
  test("decodes named and numeric entities, and leaves unknown ones", () => {
    assert.equal(
      decodeEntities("&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#x3C;&#60; &bogus; &#0;"),
      `<a> & "b" 'c' << &bogus; &#0;`,
    );
  });

  test("finds the report after other output, and reads CDATA and entities in messages", () => {
    const text = [
      "npm run test:ci",
      "some log line with <angle brackets> and a stray < sign",
      '<?xml version="1.0"?>',
      '<testsuites><testsuite name="calc" tests="3" failures="1" errors="0" skipped="1">',
      '  <testcase classname="calc.AddTest" name="adds" time="0.1"/>',
      '  <testcase classname="calc.AddTest" name="compares &lt;a&gt;" file="src/calc.test.ts">',
      '    <failure message="expected &quot;a&quot; &gt; &quot;b&quot;" type="AssertionError"><![CDATA[stack with <raw> & text]]></failure>',
      "  </testcase>",
      '  <testcase classname="calc.AddTest" name="later"><skipped message="todo"/></testcase>',
      "</testsuite></testsuites>",
      "Done in 3.2s.",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.runner, "junit");
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual([parsed.executed, parsed.passed, parsed.failed, parsed.skipped], [2, 1, 1, 1]);
    assert.deepEqual(parsed.failures, [
      { name: "calc.AddTest > compares <a>", file: "src/calc.test.ts", message: 'expected "a" > "b"' },
    ]);
    const scan = scanJUnit(text);
    assert.equal(scan?.failures[0]?.text, "stack with <raw> & text");
  });

  test("the message falls back to the body up to its stack", () => {
    const parsed = junit(
      '<testsuite name="s"><testcase name="t"><error type="TypeError">TypeError: x is undefined\n    at f (a.js:1:1)</error></testcase></testsuite>',
    );
    assert.deepEqual(parsed.failures, [{ name: "t", message: "TypeError: x is undefined" }]);
    assert.equal(parsed.failed, 1);
  });

  test("nested suites are not counted twice", () => {
    const parsed = junit(
      [
        '<testsuites tests="4" failures="1">',
        ' <testsuite name="all" tests="4" failures="1">',
        '  <testsuite name="A" tests="2" failures="1"><testcase name="a1"/><testcase name="a2"><failure message="no"/></testcase></testsuite>',
        '  <testsuite name="B" tests="2" failures="0"><testcase name="b1"/><testcase name="b2"/></testsuite>',
        " </testsuite>",
        "</testsuites>",
      ].join("\n"),
    );
    assert.deepEqual([parsed.passed, parsed.failed, parsed.skipped], [3, 1, 0]);
  });

  test("several reports printed one after another are added up", () => {
    const one =
      '<testsuite name="a" tests="2" failures="0"><testcase name="x"/><testcase name="y"/></testsuite>';
    const two =
      '<testsuite name="b" tests="1" failures="1"><testcase name="z"><failure message="bad"/></testcase></testsuite>';
    const parsed = junit(`${one}\nlog between reports\n${two}\n`);
    assert.deepEqual([parsed.passed, parsed.failed, parsed.status], [2, 1, "TEST_FAILURE"]);
  });

  test("a suite's own totals win over the elements, but never hide a failure", () => {
    // jest-junit lists todo tests as plain testcases but leaves them out of `tests`.
    const todo = junit(
      '<testsuite name="s" tests="2" failures="0" skipped="0"><testcase name="a"/><testcase name="b"/><testcase name="todo"/></testsuite>',
    );
    assert.deepEqual([todo.passed, todo.failed], [2, 0]);
    const lying = junit(
      '<testsuite name="s" tests="2" failures="0"><testcase name="a"/><testcase name="b"><failure message="x"/></testcase></testsuite>',
    );
    assert.deepEqual([lying.passed, lying.failed, lying.status], [1, 1, "TEST_FAILURE"]);
  });

  test("a truncated report still counts what it holds", () => {
    const parsed = junit(
      '<testsuite name="s"><testcase name="a"/><testcase name="b"><failure message="boom">trace',
    );
    assert.deepEqual([parsed.passed, parsed.failed], [1, 1]);
    assert.equal(parsed.failures[0]?.message, "boom");
  });

  test("an attribute value may hold a >", () => {
    const parsed = junit('<testsuite name="s"><testcase name="a > b" classname="a > b"/></testsuite>');
    assert.deepEqual([parsed.passed, parsed.status], [1, "PASS"]);
  });

  test("an error directly in a suite (setup failure) is a failure", () => {
    const parsed = junit('<testsuite name="DbTest" tests="0"><error message="cannot connect"/></testsuite>');
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual(parsed.failures, [{ name: "DbTest", message: "cannot connect" }]);
  });

  test("a file-level failure with a load error is a BUILD_ERROR", () => {
    const parsed = junit(
      '<testsuite name="src/a.test.ts"><testcase name="src/a.test.ts" classname="src/a.test.ts"><failure message="SyntaxError: Unexpected token"/></testcase></testsuite>',
    );
    assert.equal(parsed.status, "BUILD_ERROR");
    assert.match(parsed.reason ?? "", /src\/a\.test\.ts did not load: SyntaxError/);
  });

  test("a report with no testcase is NO_TESTS; no report at all is UNPARSED", () => {
    assert.equal(junit('<testsuites><testsuite name="empty" tests="0"/></testsuites>').status, "NO_TESTS");
    const none = junit("no xml here");
    assert.equal(none.status, "UNPARSED");
    assert.match(none.reason ?? "", /no <testsuite>/);
  });
});
