import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { nodeTestParser, parseNodeTest, testlessFiles } from "../../../src/verification/parsers/node-test.js";
import { parseWithTrials } from "../../../src/verification/parsers/registry.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/node-test/${path}`, import.meta.url), "utf8");
const counts = (text: string) => {
  const p = parseNodeTest(text);
  return { status: p.status, executed: p.executed, passed: p.passed, failed: p.failed };
};
const SUMMARY = [
  "ℹ tests 1",
  "ℹ suites 0",
  "ℹ pass 1",
  "ℹ fail 0",
  "ℹ cancelled 0",
  "ℹ skipped 0",
  "ℹ todo 0",
];

describe("node test files that produced no test of their own", () => {
  test("a file ended by process.exit(0) is not an executed test, in every reporter with counts", () => {
    for (const file of ["exitzero.spec.log", "exitzero.tap.log", "exitzero.junit.xml", "exitmid.spec.log"]) {
      const parsed = parseNodeTest(fixture(file));
      assert.deepEqual(
        { status: parsed.status, executed: parsed.executed, passed: parsed.passed },
        { status: "NO_TESTS", executed: 0, passed: 0 },
        file,
      );
      assert.equal(
        parsed.reason,
        "no test ran: 1 test file(s) ended without a test of their own (node counts each as a passed test named after the file)",
        file,
      );
      assert.equal(testlessFiles(fixture(file)), 1, file);
    }
  });

  test("next to a file with real tests, only the real tests count, and the reading says why", () => {
    for (const file of ["exitmix.spec.log", "exitmix.tap.log", "exitmix.junit.xml"]) {
      const parsed = parseNodeTest(fixture(file));
      assert.deepEqual(
        { status: parsed.status, executed: parsed.executed, passed: parsed.passed, failed: parsed.failed },
        { status: "PASS", executed: 2, passed: 2, failed: 0 },
        file,
      );
      assert.equal(
        parsed.reason,
        "1 test file(s) ended without a test of their own; not counted as executed",
        file,
      );
    }
  });

  test("ordinary runs have none, and keep node's counts and reasons", () => {
    for (const file of [
      "pass.spec.log",
      "pass.tap.log",
      "pass.junit.xml",
      "fail.spec.log",
      "broken.spec.log",
    ]) {
      assert.equal(testlessFiles(fixture(file)), 0, file);
    }
    assert.equal(parseNodeTest(fixture("pass.spec.log")).reason, undefined);
    assert.equal(parseNodeTest(fixture("zero.spec.log")).reason, "node's test runner reported tests 0");
  });

  test("only passing top-level entries named by an absolute script path count", () => {
    const spec = (entry: string) => [entry, ...SUMMARY].join("\n");
    assert.equal(testlessFiles(spec("✔ /p/test/a.test.js (30.5ms)")), 1);
    assert.equal(testlessFiles(spec("✔ /p/test/a.test.ts")), 1);
    assert.equal(testlessFiles(spec("✔ /p/test/a.test.mjs (1s)")), 1);
    assert.equal(testlessFiles(spec("✔ C:\\p\\test\\a.test.cjs (3ms)")), 1);
    assert.equal(testlessFiles(spec("ok 1 - /p/test/a.test.js")), 1);
    assert.equal(testlessFiles(spec('\t<testcase name="/p/a.test.js" time="0.1" classname="test"/>')), 1);
    for (const entry of [
      "✔ adds (1ms)",
      "✔ test/a.test.js (3ms)",
      "✔ /p/test/a.test.py (3ms)",
      "✔ /p/test/data.json",
      "✖ /p/test/a.test.js (3ms)",
      "  ✔ /p/test/a.test.js (3ms)",
      "ok 1 - /p/test/a.test.js # SKIP",
      "not ok 1 - /p/test/a.test.js",
      "    ok 1 - /p/test/a.test.js",
      '\t<testcase name="/p/a.test.js" time="0.1" classname="test">',
      "x✔ /p/a.test.js",
      "✔ /p/a.test.jsx2",
    ]) {
      assert.equal(testlessFiles(spec(entry)), 0, entry);
    }
  });

  test("each summary covers the entries since the one before it (watch mode reruns)", () => {
    const first = ["✔ /p/a.test.js (3ms)", "✔ /p/b.test.js (3ms)", ...SUMMARY];
    const second = ["✔ /p/c.test.js (3ms)", "✔ adds (1ms)", ...SUMMARY];
    assert.equal(testlessFiles([...first, ...second].join("\n")), 1);
    assert.equal(testlessFiles([...second, ...first].join("\n")), 2);
    assert.equal(
      testlessFiles([...first, "✔ /p/late.test.js"].join("\n")),
      2,
      "entries after the last summary are not counted",
    );
    for (const opener of ["# tests 1", "  <!-- tests 1 -->", "<!--tests 3-->"]) {
      assert.equal(testlessFiles(["✔ /p/a.test.js", opener, "✔ /p/b.test.js", opener].join("\n")), 1, opener);
    }
    assert.equal(testlessFiles(["✔ /p/a.test.js", "ℹ tests x", "ℹ tests 1"].join("\n")), 1);
  });

  test("a line too long to be a reporter's entry is not read", () => {
    const long = `✔ /${"a/".repeat(3000)}x.test.js`;
    assert.equal(testlessFiles([long, ...SUMMARY].join("\n")), 0);
    const justFits = `✔ /${"a".repeat(4085)}.test.js`;
    assert.equal(justFits.length, 4096);
    assert.equal(testlessFiles([justFits, ...SUMMARY].join("\n")), 1);
  });

  test("more file entries than passes never makes a negative count", () => {
    const text = ["✔ /p/a.test.js", "✔ /p/b.test.js", "ℹ tests 1", "ℹ pass 1", "ℹ fail 0"].join("\n");
    assert.deepEqual(counts(text), { status: "NO_TESTS", executed: 0, passed: 0, failed: 0 });
  });
});

const spec = (...lines: string[]) => parseNodeTest([...lines, ...SUMMARY].join("\n"));

describe("node's spec reporter, line by line", () => {
  test("failures are named under their suites, with the file from the failing-tests section and node's message", () => {
    const parsed = parseNodeTest(fixture("fail.spec.log"));
    assert.deepEqual(parsed.failures, [
      {
        name: "strings > concatenates",
        message: "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n'ab' !== 'abc'",
        file: "math.test.mjs",
      },
      { name: "throws on bad input", message: "Error: boom: bad input", file: "math.test.mjs" },
    ]);
  });

  test("a string error is unquoted; a message is its lines up to the stack, eight at most", () => {
    const text = (...body: string[]) =>
      ["✖ t (1ms)", ...body.map((l) => `  ${l}`), "ℹ tests 1", "ℹ pass 0", "ℹ fail 1"].join("\n");
    assert.equal(parseNodeTest(text("'test failed'")).failures[0]?.message, "test failed");
    assert.equal(parseNodeTest(text("'a' !== 'b'")).failures[0]?.message, "'a' !== 'b'");
    assert.equal(
      parseNodeTest(text("Error: x", "at f (a.js:1:1)", "after")).failures[0]?.message,
      "Error: x",
    );
    const ten = Array.from({ length: 10 }, (_, i) => `line ${i}`);
    assert.equal(parseNodeTest(text(...ten)).failures[0]?.message, ten.slice(0, 8).join("\n"));
    assert.equal(parseNodeTest(text()).failures[0]?.message, "failed");
  });

  test("a failure's body ends at the first line indented no deeper than its mark; blank lines stay in it", () => {
    const parsed = parseNodeTest(
      [
        "✖ t (1ms)",
        "  first",
        "",
        "  second",
        "✔ u (1ms)",
        "  not part",
        "ℹ tests 2",
        "ℹ pass 1",
        "ℹ fail 1",
      ].join("\n"),
    );
    assert.equal(parsed.failures[0]?.message, "first\nsecond");
  });

  test("a suite's closing line is not a failure; a failing test of the same indent after it is", () => {
    const parsed = spec("▶ s", "  ✖ inner (1ms)", "    boom", "✖ s (2ms)", "✖ s (1ms)", "  other");
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.message]),
      [
        ["s > inner", "boom"],
        ["s", "other"],
      ],
    );
  });

  test("nested suites name a failure from the outermost; a sibling suite replaces the one before it", () => {
    const parsed = spec(
      "▶ a",
      "  ▶ b",
      "    ✖ x (1ms)",
      "      e1",
      "  ✖ b (1ms)",
      "  ▶ c",
      "    ✖ y (1ms)",
      "      e2",
      "  ✖ c (1ms)",
      "✖ a (1ms)",
      "▶ d",
      "  ✖ z (1ms)",
      "    e3",
      "✖ d (1ms)",
    );
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["a > b > x", "a > c > y", "d > z"],
    );
  });

  test("skipped, todo and warned tests close nothing and fail nothing", () => {
    const parsed = spec(
      "▶ s",
      "  ﹣ later # SKIP",
      "  ⚠ flaky # TODO",
      "  ✖ real (1ms)",
      "    boom",
      "✖ s (1ms)",
    );
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["s > real"],
    );
  });

  test("a failing test marked TODO or SKIP is named without its marker and duration", () => {
    const parsed = spec("✖ later # TODO (1.5ms)", "  boom", "✖ other # reason given (2ms)", "  boom");
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["later", "other"],
    );
  });

  test("only summary keys node prints are read; an unknown key does not start a summary", () => {
    const parsed = parseNodeTest(["ℹ tests 3", "ℹ pass 3", "ℹ fail 0", "ℹ widgets 9", "ℹ pass 2"].join("\n"));
    assert.deepEqual([parsed.status, parsed.passed], ["PASS", 2]);
    assert.equal(parseNodeTest(["ℹ pass 3", "ℹ fail 0"].join("\n")).status, "PASS");
    assert.equal(parseNodeTest(["ℹ tests 3", "ℹ pass 3"].join("\n")).status, "UNPARSED");
    assert.equal(
      parseNodeTest(["ℹ tests 3", "ℹ fail 0"].join("\n")).reason,
      "no node test summary (ℹ tests / # tests) found",
    );
  });

  test("the failing-tests section gives files only to the failures named in it, at the top level", () => {
    const parsed = spec(
      "✖ a (1ms)",
      "  e",
      "✖ b (1ms)",
      "  e",
      "✖ failing tests:",
      "test at test/a.test.js:3:1",
      "✖ a (1ms)",
      "  e",
      "  test at test/b.test.js:9:1",
      "✖ b (1ms)",
      "test at test/c.test.js:1",
      "✖ a (1ms)",
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.file]),
      [
        ["a", "test/a.test.js"],
        ["b", undefined],
      ],
    );
  });

  test("the failing-tests section ends at the next top-level entry or summary line", () => {
    const parsed = parseNodeTest(
      [
        "✖ failing tests:",
        "test at test/a.test.js:3:1",
        "✖ a (1ms)",
        "ℹ tests 1",
        "ℹ pass 0",
        "ℹ fail 1",
        "✔ fine (1ms)",
        "✖ late (1ms)",
        "  e",
        "ℹ tests 1",
        "ℹ pass 0",
        "ℹ fail 1",
      ].join("\n"),
    );
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["late"],
    );
  });
});

describe("node test files that did not load", () => {
  test("a file-level failure with a load error in the output is a BUILD_ERROR naming the file and the error", () => {
    const parsed = parseNodeTest(fixture("broken.spec.log"));
    assert.deepEqual(
      [parsed.status, parsed.reason],
      [
        "BUILD_ERROR",
        "/tmp/capture/proj/node/broken/math.test.mjs did not load: SyntaxError: Unexpected end of input",
      ],
    );
    assert.deepEqual(parsed.failures[0], {
      name: "/tmp/capture/proj/node/broken/math.test.mjs",
      message: "SyntaxError: Unexpected end of input",
      file: "math.test.mjs",
    });
    const tap = parseNodeTest(fixture("broken.tap.log"));
    assert.equal(tap.failures[0]?.file, "/tmp/capture/proj/node/broken/math.test.mjs");
  });

  const broken = (name: string, ...output: string[]) =>
    parseNodeTest(
      [...output, `✖ ${name} (1ms)`, "  'test failed'", "ℹ tests 1", "ℹ pass 0", "ℹ fail 1"].join("\n"),
    );

  test("a Windows path or a relative path is a file-level failure too; a test's own name is not", () => {
    assert.equal(broken("C:\\p\\a.test.js", "SyntaxError: Unexpected token").status, "BUILD_ERROR");
    assert.equal(broken("test/a.test.js", "SyntaxError: Unexpected token").status, "BUILD_ERROR");
    assert.equal(broken("parses input", "SyntaxError: Unexpected token").status, "TEST_FAILURE");
    assert.equal(broken("/p/a.test.js").status, "TEST_FAILURE", "no load error in the output");
  });

  test("the load error is the first line shaped like an error, after any TAP # and without stack lines", () => {
    assert.equal(
      broken("/p/a.test.js", "# at SyntaxError (x)", "# SyntaxError: bad token").reason,
      "/p/a.test.js did not load: SyntaxError: bad token",
    );
    assert.equal(
      broken(
        "/p/a.test.js",
        "   Cannot find module 'x' here",
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'y'",
      ).reason,
      "/p/a.test.js did not load: Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'y'",
    );
    assert.equal(
      broken("/p/a.test.js", "   Cannot find module 'x' here", "then Cannot find package 'y'").reason,
      "/p/a.test.js did not load: Cannot find module 'x' here",
      "without an error-shaped line, the first line that names a load error",
    );
    assert.equal(
      broken("/p/a.test.js", `SyntaxError: ${"x".repeat(1987)}`).status,
      "TEST_FAILURE",
      "a line of 2000 characters or more is not read",
    );
    assert.equal(broken("/p/a.test.js", `SyntaxError: ${"x".repeat(1986)}`).status, "BUILD_ERROR");
  });
});

describe("node's dot reporter", () => {
  test("it lists failures after `Failed tests:` with their messages, leaving out suites that only count subtests", () => {
    const parsed = parseNodeTest(fixture("fail.dot.log"));
    assert.deepEqual(parsed.failures, [
      {
        name: "concatenates",
        message: "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n'ab' !== 'abc'",
      },
      { name: "throws on bad input", message: "Error: boom: bad input" },
    ]);
    const two = parseNodeTest(
      [".XX", "", "Failed tests:", "", "✖ s (1ms)", "  '2 subtests failed'"].join("\n"),
    );
    assert.deepEqual(two.failures, []);
  });

  test("lines before `Failed tests:` are not failures, and a message ends at the next unindented line", () => {
    const parsed = parseNodeTest(
      [
        ".X",
        "✖ early (1ms)",
        "Failed tests:",
        "✖ a (1ms)",
        "  boom",
        "",
        "  more",
        "next",
        "✖ b (1ms)",
        "  bang",
      ].join("\n"),
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.message]),
      [
        ["a", "boom\nmore"],
        ["b", "bang"],
      ],
    );
  });

  test("dots and Xs on the first line are the dot reporter, unless a spec summary follows", () => {
    assert.equal(
      parseNodeTest("..X.\n").reason,
      "node's dot reporter prints no counts; run with --test-reporter=spec or tap",
    );
    assert.equal(parseNodeTest("\n\n..\n").status, "UNPARSED");
    assert.deepEqual(
      [parseNodeTest(["..", "ℹ tests 2", "ℹ pass 2", "ℹ fail 0"].join("\n")).status],
      ["PASS"],
    );
    assert.equal(parseNodeTest(".x.\nℹ tests 1\nℹ pass 1\nℹ fail 0").status, "PASS");
  });
});

describe("which of node's reporters printed the output", () => {
  test("junit comments or a testsuites root without a spec summary are read as JUnit", () => {
    const xml = `<?xml version="1.0"?>\n<testsuites>\n<testcase name="a" time="0.1" classname="test"/>\n<!-- tests 1 -->\n<!-- pass 1 -->\n<!-- fail 0 -->\n</testsuites>`;
    assert.deepEqual([parseNodeTest(xml).status, parseNodeTest(xml).passed], ["PASS", 1]);
    const noRoot = parseNodeTest("<!-- tests 1 -->\n<!-- pass 1 -->\n<!-- fail 0 -->");
    assert.deepEqual([noRoot.status, noRoot.reason], ["UNPARSED", "no <testsuites> element found"]);
    const specAfter = parseNodeTest("<testsuites>\nℹ tests 2\nℹ pass 2\nℹ fail 0");
    assert.deepEqual([specAfter.status, specAfter.passed], ["PASS", 2]);
  });

  test("a failing JUnit test is named under its suite, with the file when its name is a path", () => {
    const parsed = parseNodeTest(
      [
        "<testsuites>",
        '<testsuite name="math">',
        '<testcase name="adds" classname="test"><failure message="boom" type="testCodeFailure">boom</failure></testcase>',
        "</testsuite>",
        '<testcase name="/p/a.test.js" classname="test"><failure message="test failed" type="testCodeFailure">test failed</failure></testcase>',
        '<testcase name="plain" classname="test"><failure message="bad" type="testCodeFailure">bad</failure></testcase>',
        "<!-- tests 3 -->",
        "<!-- pass 0 -->",
        "<!-- fail 3 -->",
        "</testsuites>",
      ].join("\n"),
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.file]),
      [
        ["math > adds", undefined],
        ["/p/a.test.js", "/p/a.test.js"],
        ["plain", undefined],
      ],
    );
  });

  test("TAP is recognised by its version line or a Subtest comment", () => {
    const tap = (head: string) =>
      parseNodeTest([head, "ok 1 - a", "1..1", "# tests 1", "# pass 1", "# fail 0"].join("\n"));
    assert.deepEqual([tap("TAP version 13").status, tap("TAP version 13").passed], ["PASS", 1]);
    assert.equal(tap("# Subtest: a").status, "PASS");
    assert.equal(tap("TAP version 13 (x)").status, "UNPARSED");
  });

  test("detection: node's summary lines in each reporter, and dot output", () => {
    for (const text of [
      "ℹ tests 3",
      "ℹ duration_ms 12.5",
      "# duration_ms 12",
      "# cancelled 0",
      "<!-- tests 3 -->",
      "<!-- duration_ms 1.5 -->",
      "..X.",
      "..X.\n\nFailed tests:\n\n✖ a",
    ]) {
      assert.equal(nodeTestParser.detect(text), true, text);
    }
    for (const text of [
      "x ℹ tests 3",
      "ℹ tests three",
      "# tests 3",
      "#duration_ms 1",
      "<!-- pass 3 -->",
      "<!-- duration_ms x -->",
      "..X.\nmore",
      "tests 3",
    ]) {
      assert.equal(nodeTestParser.detect(text), false, text);
    }
  });
});

describe("node's output, read exactly", () => {
  const entry = "✔ /p/a.test.js (1ms)";
  const other = "✔ /p/b.test.js (1ms)";

  test("only a whole summary line opens the next run's entries, in each reporter", () => {
    for (const notOpener of ["see # tests 1", "ℹ tests 1 more", "x <!-- tests 1 -->", "<!-- tests 1 --> x"]) {
      assert.equal(testlessFiles([entry, notOpener, other, "ℹ tests 2"].join("\n")), 2, notOpener);
    }
    for (const opener of ["ℹ tests 12", "  <!-- tests 12 -->"]) {
      assert.equal(testlessFiles([entry, opener, other, opener].join("\n")), 1, opener);
    }
  });

  test("file entries with any test number, in the junit reporter at any indent, and only whole lines", () => {
    const count = (line: string) => testlessFiles([line, "ℹ tests 1"].join("\n"));
    assert.equal(count("ok 12 - /p/a.test.js"), 1);
    assert.equal(count('<testcase name="/p/a.test.js" time="0.1" classname="test"/>'), 1);
    assert.equal(count('x <testcase name="/p/a.test.js" time="0.1" classname="test"/>'), 0);
    assert.equal(count('<testcase name="/p/a.test.js" time="0.1" classname="test"/> x'), 0);
  });

  test("the not-counted note is said only when tests were executed, failing ones included", () => {
    const failing = parseNodeTest(
      [entry, "✖ real (1ms)", "  boom", "ℹ tests 2", "ℹ pass 1", "ℹ fail 1"].join("\n"),
    );
    assert.deepEqual(
      [failing.status, failing.executed, failing.reason],
      ["TEST_FAILURE", 1, "1 test file(s) ended without a test of their own; not counted as executed"],
    );
    const none = parseNodeTest(
      [entry, "✖ odd (1ms)", "  boom", "ℹ tests 1", "ℹ pass 1", "ℹ fail 0"].join("\n"),
    );
    assert.deepEqual([none.status, none.executed, none.reason], ["TEST_FAILURE", 0, undefined]);
  });

  const broken = (name: string, ...output: string[]) =>
    parseNodeTest(
      [...output, `✖ ${name} (1ms)`, "  'test failed'", "ℹ tests 1", "ℹ pass 0", "ℹ fail 1"].join("\n"),
    );

  test("a file-level failure: an absolute path without an extension is one, a name with a drive inside is not", () => {
    assert.equal(broken("/p/run", "SyntaxError: x").status, "BUILD_ERROR");
    assert.equal(broken("handles C:\\temp", "SyntaxError: x").status, "TEST_FAILURE");
  });

  test("load errors: TAP's # only at the start, stack lines only from their start, error lines from theirs", () => {
    const reason = (...lines: string[]) => broken("/p/a.test.js", ...lines).reason;
    assert.equal(reason("SyntaxError: bad # token"), "/p/a.test.js did not load: SyntaxError: bad # token");
    assert.equal(reason("#SyntaxError: x"), "/p/a.test.js did not load: SyntaxError: x");
    assert.equal(
      reason("   at SyntaxError.x (y)", "Cannot find module 'z'"),
      "/p/a.test.js did not load: Cannot find module 'z'",
    );
    assert.equal(
      reason("Cannot find module 'x' at /p"),
      "/p/a.test.js did not load: Cannot find module 'x' at /p",
    );
    assert.equal(
      reason("in SyntaxError: first", "SyntaxError: second"),
      "/p/a.test.js did not load: SyntaxError: second",
    );
    assert.equal(
      reason("Cannot find module 'a'", "SyntaxError: y"),
      "/p/a.test.js did not load: SyntaxError: y",
    );
  });

  test("the dot reporter is told by its whole first line", () => {
    const DOT = "node's dot reporter prints no counts; run with --test-reporter=spec or tap";
    assert.equal(parseNodeTest("\n\n..\n").reason, DOT);
    assert.equal(parseNodeTest(".. not dots\n").reason, "no node test summary (ℹ tests / # tests) found");
    assert.equal(parseNodeTest("x..\n").reason, "no node test summary (ℹ tests / # tests) found");
    assert.equal(parseNodeTest(["..", "see ℹ tests 2", "ℹ pass 2", "ℹ fail 0"].join("\n")).reason, DOT);
    assert.equal(parseNodeTest(["..", "ℹ tests 2 x", "ℹ pass 2", "ℹ fail 0"].join("\n")).reason, DOT);
    assert.deepEqual([parseNodeTest(["..", "ℹ tests 12", "ℹ pass 12", "ℹ fail 0"].join("\n")).passed], [12]);
  });

  test("junit comments in any spacing and count choose the JUnit reading; a spec summary line only from its start", () => {
    for (const comment of ["<!--tests 1 -->", "<!-- tests 12 -->", "<!-- tests 1-->"]) {
      assert.equal(parseNodeTest(comment).reason, "no <testsuites> element found", comment);
    }
    assert.equal(
      parseNodeTest(["<testsuites>", "ℹ pass 1", "ℹ fail 0"].join("\n")).status,
      "UNPARSED",
      "a testsuites root without a spec summary is JUnit",
    );
    assert.equal(
      parseNodeTest(["<testsuites>", "see ℹ tests 2", "ℹ pass 2", "ℹ fail 0"].join("\n")).status,
      "UNPARSED",
    );
  });

  test("TAP's version line and Subtest comments count only from a line's start", () => {
    for (const head of ["see TAP version 13", "x # Subtest: a"]) {
      const parsed = parseNodeTest([head, "ok 1 - a", "# tests 1", "# pass 1", "# fail 0"].join("\n"));
      assert.equal(parsed.status, "UNPARSED", head);
    }
    assert.equal(
      parseNodeTest(["  # Subtest: a", "ok 1 - a", "# tests 1", "# pass 1", "# fail 0"].join("\n")).status,
      "PASS",
    );
  });

  test("detection: whole lines and node's own spacing", () => {
    for (const text of ["<!--tests 3 -->", "  ..X\n", "..\nFailed tests:\n"]) {
      assert.equal(nodeTestParser.detect(text), true, text);
    }
    for (const text of ["x # duration_ms 1", "..\nfoo ..", "..\nsee Failed tests:", "..\nFailed tests: 2"]) {
      assert.equal(nodeTestParser.detect(text), false, text);
    }
  });

  test("what node's parser looks for is said when nothing recognised the output", () => {
    const { tried } = parseWithTrials("all fine\n");
    assert.match(tried.find((t) => t.runner === "node-test")?.why ?? "", /^no node --test's `ℹ tests N`/);
  });
});

describe("node's spec and dot reporters: failure names and messages, read exactly", () => {
  const names = (...lines: string[]) => spec(...lines).failures.map((f) => f.name);

  test("summary lines are read whole: trailing blanks are fine, summary text inside another line is not one", () => {
    const padded = parseNodeTest(["✔ a (1ms)  ", "ℹ tests 1  ", "ℹ pass 1 ", "ℹ fail 0 "].join("\n"));
    assert.deepEqual([padded.status, padded.passed], ["PASS", 1]);
    const printed = parseNodeTest(
      ["✔ a (1ms)", "ℹ tests 1", "ℹ pass 1", "ℹ fail 0", "log: ℹ pass 9", "ℹ fail 3 said a test"].join("\n"),
    );
    assert.deepEqual([printed.status, printed.passed, printed.failed], ["PASS", 1, 0]);
  });

  test("the failing-tests section: a file goes to the next top-level failure line, whatever lies between", () => {
    const parsed = spec(
      "✖ a (1ms)",
      "  e",
      "✖ b (1ms)",
      "  e",
      "✖ parses test at c.js:3",
      "  e",
      "✖ d (1ms)",
      "  e",
      "✖ failing tests:",
      "test at test/a.test.js:13:21",
      "",
      "✖ a (1ms)",
      "  ✔ a line of the error that looks like a passing test",
      "test at test/b.test.js:4:1",
      "  ✖ b's subtest (1ms)",
      "✖ b (1ms)",
      "test at test/c.test.js:7:1",
      "✖ parses test at c.js:3",
      "test at test/d.test.js:8:1",
      "test at elsewhere.js:9:9 and more",
      "✖ d (1ms)",
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.file]),
      [
        ["a", "test/a.test.js"],
        ["b", "test/b.test.js"],
        ["parses test at c.js:3", "test/c.test.js"],
        ["d", "test/d.test.js"],
      ],
    );
    const marked = spec(
      "✖ renders ✔ marks (1ms)",
      "  e",
      "✖ failing tests:",
      "test at t.js:1:1",
      "✖ renders ✔ marks (1ms)",
    );
    assert.equal(marked.failures[0]?.file, "t.js");
  });

  test("a suite left open (no closing line) is replaced by the next suite at its level and closed by a line above it", () => {
    assert.deepEqual(names("▶ A", "  ✔ t1 (1ms)", "▶ B", "  ✖ t2 (1ms)", "    e", "✖ x (1ms)", "  e"), [
      "B > t2",
      "x",
    ]);
    assert.deepEqual(names("▶ A", "  ▶ B", "    ✖ t (1ms)", "      e", "✖ A (1ms)"), ["A > B > t"]);
    assert.deepEqual(names("▶ A", "  ✔ t1 (1ms)", "✔ y (1ms)"), []);
  });

  test("a suite's closing line closes it whatever its mark; a failing test named like a suite is still a failure", () => {
    for (const mark of ["✔", "﹣", "⚠", "✖"]) {
      assert.deepEqual(names("▶ S", "  ✔ t (1ms)", `${mark} S (1ms)`, "✖ S (1ms)", "  e"), ["S"], mark);
    }
    assert.deepEqual(names("▶ S", "  ✖ S (1ms)", "    e", "✖ S (1ms)"), ["S > S"]);
  });

  test("a failure's body may run to the end of the output, and keeps a blank line however little it is indented", () => {
    const late = parseNodeTest(["ℹ tests 1", "ℹ pass 1", "ℹ fail 0", "✖ late (1ms)", "  e"].join("\n"));
    assert.equal(late.status, "PASS");
    const parsed = spec("▶ S", "  ✖ t (1ms)", "    first", " ", "    second", "✖ S (1ms)");
    assert.equal(parsed.failures[0]?.message, "first\nsecond");
  });

  test("names lose node's duration and markers only at their end; a message stops at a stack line only", () => {
    assert.deepEqual(
      names(
        "✖ waits (5ms) then fails (1ms)",
        "  e",
        "✖ slow (1.5s)",
        "  e",
        "✖  spaced (1ms)",
        "  e",
        "✖ marked # SKIP because",
        "  e",
      ),
      ["waits (5ms) then fails", "slow", "spaced", "marked"],
    );
    assert.deepEqual(names("▶ A", "  ▶  B", "    ✖ t (1ms)", "      e"), ["A > B > t"]);
    const message = spec("✖ t (1ms)", "  the value at index 2 differs", "  at Object.<anonymous> (a.js:1:1)");
    assert.equal(message.failures[0]?.message, "the value at index 2 differs");
  });

  test("the dot reporter: failures only under its heading, and suites left out by their exact message", () => {
    assert.deepEqual(parseNodeTest(["..X", "✖ not under the heading (1ms)", "  e"].join("\n")).failures, []);
    const suites = parseNodeTest(
      [
        ".XXX",
        "Failed tests:",
        "✖ counted (1ms)",
        "  '12 subtests failed'",
        "✖ said (1ms)",
        "  'expected 3 subtests failed'",
        "✖ more (1ms)",
        "  '2 subtests failed badly'",
      ].join("\n"),
    );
    assert.deepEqual(
      suites.failures.map((f) => f.name),
      ["said", "more"],
    );
  });

  test("a JUnit test named like its suite is named once", () => {
    const parsed = parseNodeTest(
      [
        "<testsuites>",
        '<testsuite name="same">',
        '<testcase name="same" classname="test"><failure message="boom" type="testCodeFailure">boom</failure></testcase>',
        "</testsuite>",
        "<!-- tests 1 -->",
        "<!-- pass 0 -->",
        "<!-- fail 1 -->",
        "</testsuites>",
      ].join("\n"),
    );
    assert.deepEqual(
      parsed.failures.map((f) => f.name),
      ["same"],
    );
  });
});
