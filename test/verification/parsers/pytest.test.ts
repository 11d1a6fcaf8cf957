import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { pytestParser } from "../../../src/verification/parsers/pytest.js";
import { parseTestOutput, parseWithTrials } from "../../../src/verification/parsers/registry.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/pytest/${path}`, import.meta.url), "utf8");
const parse = (lines: string[]) => pytestParser.parse(lines.join("\n"));
const counts = (line: string) => {
  const p = parse([line]);
  return [p.status, p.passed, p.failed, p.skipped];
};

describe("pytest's closing line", () => {
  test("every word is counted where it belongs; deselected and warnings not at all", () => {
    assert.deepEqual(
      counts(
        "1 failed, 2 passed, 3 skipped, 4 deselected, 5 xfailed, 6 xpassed, 7 warnings, 1 error in 0.50s",
      ),
      ["TEST_FAILURE", 8, 2, 8],
    );
    assert.deepEqual(counts("2 errors in 1s"), ["TEST_FAILURE", 0, 2, 0]);
    assert.deepEqual(counts("3 passed, 1 warning in 0.01s"), ["PASS", 3, 0, 0]);
    assert.deepEqual(counts("3 passed, 2 rerun in 0.01s"), ["PASS", 3, 0, 0]);
    assert.deepEqual(counts("3 passed, 4 subtests passed in 0.01s"), ["PASS", 3, 0, 0]);
    assert.deepEqual(counts("=== 3 passed in 0.01s (0:00:01) ==="), ["PASS", 3, 0, 0]);
    assert.deepEqual(counts("1 passed, 1 passed in 1s"), ["PASS", 2, 0, 0]);
  });

  test("a bare -q closing line with warnings, subtests or reruns is recognised as pytest's", () => {
    const detected = (line: string) => {
      const p = parseTestOutput(`....                [100%]\n${line}\n`);
      return [p.runner, p.status, p.passed, p.failed];
    };
    assert.deepEqual(detected("172 passed, 12 subtests passed in 2.86s"), ["pytest", "PASS", 172, 0]);
    assert.deepEqual(detected("1 passed, 1 warning in 0.01s"), ["pytest", "PASS", 1, 0]);
    assert.deepEqual(detected("4 passed, 1 rerun in 0.30s"), ["pytest", "PASS", 4, 0]);
    assert.deepEqual(detected("1 failed, 3 passed, 2 subtests passed in 3.89s"), [
      "pytest",
      "TEST_FAILURE",
      3,
      1,
    ]);
    assert.equal(parseTestOutput("  1 passed, 1 warning in 0.01s\n").runner, "unknown");
  });

  test("a failed subtest is named with its parameters", () => {
    const p = pytestParser.parse(fixture("subtestfail.q.log"));
    assert.deepEqual(
      p.failures.map((f) => [f.name, f.file, f.message]),
      [["TestSquares::test_squares (i=1)", "tests/test_sub.py", "AssertionError: 1 != 2"]],
    );
  });

  test("a closing line needs its duration, and may not be indented or too long", () => {
    assert.equal(parse(["3 passed"]).status, "UNPARSED");
    assert.equal(parse(["  3 passed in 0.1s"]).status, "UNPARSED");
    assert.equal(parse(["x 3 passed in 0.1s"]).status, "UNPARSED");
    assert.equal(parse(["3 passed in 0.1s and more"]).status, "UNPARSED");
    assert.equal(parse([`== 3 passed in 0.1s ${" ".repeat(400)}==`]).status, "UNPARSED");
    assert.equal(parse(["3 passed in 0.1s"]).status, "PASS");
    assert.equal(parse(["nothing"]).reason, "no pytest summary line (N passed/failed in Xs) found");
  });

  test("`no tests ran` is NO_TESTS in pytest's words, and a later real summary replaces it", () => {
    const none = parse(["no tests ran in 0.01s"]);
    assert.deepEqual([none.status, none.reason, none.executed], ["NO_TESTS", "pytest: no tests ran", 0]);
    assert.equal(parse(["===== no tests ran in 0.01s ====="]).status, "NO_TESTS");
    assert.equal(parse(["no tests ran in 0.01s", "2 passed in 0.1s"]).status, "PASS");
    assert.equal(parse(["2 passed in 0.1s", "no tests ran in 0.01s"]).status, "NO_TESTS");
    assert.equal(parse(["0 passed in 0.1s"]).reason, "pytest ran no test");
  });

  test("the last closing line counts, with the failures listed since the one before", () => {
    const text = `${fixture("fail.default.log")}\n${fixture("pass.default.log")}`;
    const parsed = pytestParser.parse(text);
    assert.deepEqual([parsed.status, parsed.passed, parsed.failures.length], ["PASS", 4, 0]);
    const again = pytestParser.parse(`${fixture("pass.default.log")}\n${fixture("fail.default.log")}`);
    assert.deepEqual(
      again.failures.map((f) => f.name),
      ["TestStrings::test_concatenates", "test_throws_on_bad_input"],
    );
  });
});

describe("pytest's failures", () => {
  const run = (body: string[], summary = "1 failed in 0.1s") =>
    parse(["=== FAILURES ===", ...body, "=== short test summary info ===", ...SHORT, `=== ${summary} ===`]);
  let SHORT: string[] = [];

  test("the short summary names file and test; the FAILURES section gives the E lines and location", () => {
    SHORT = ["FAILED tests/test_a.py::TestX::test_one - AssertionError: short"];
    const parsed = run([
      "___ TestX.test_one ___",
      "    def test_one():",
      "E   AssertionError: full",
      "E   second",
      "tests/test_a.py:3: AssertionError",
    ]);
    assert.deepEqual(parsed.failures, [
      { name: "TestX::test_one", file: "tests/test_a.py", message: "AssertionError: full\nsecond" },
    ]);
  });

  test("without details the short summary's own message, else its kind, is the message", () => {
    SHORT = [
      "FAILED tests/test_a.py::test_two - ValueError: from the summary",
      "ERROR tests/test_b.py::test_three",
    ];
    const parsed = run([], "1 failed, 1 error in 0.1s");
    assert.deepEqual(parsed.failures, [
      { name: "test_two", file: "tests/test_a.py", message: "ValueError: from the summary" },
      { name: "test_three", file: "tests/test_b.py", message: "ERROR" },
    ]);
  });

  test("setup and teardown errors and collection errors find their details", () => {
    SHORT = [
      "ERROR tests/test_a.py::test_s - RuntimeError: s",
      "ERROR tests/test_a.py::test_t - RuntimeError: t",
      "ERROR tests/test_c.py",
    ];
    const parsed = parse([
      "=== ERRORS ===",
      "___ ERROR at setup of test_s ___",
      "E   RuntimeError: setup broke",
      "___ ERROR at teardown of test_t ___",
      "E   RuntimeError: teardown broke",
      "___ ERROR collecting tests/test_c.py ___",
      "E   SyntaxError: bad",
      "=== short test summary info ===",
      ...SHORT,
      "=== 3 errors in 0.1s ===",
    ]);
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.message]),
      [
        ["test_s", "RuntimeError: setup broke"],
        ["test_t", "RuntimeError: teardown broke"],
        ["tests/test_c.py", "SyntaxError: bad"],
      ],
    );
  });

  test("a short-summary line outside its section, or of another kind, is not a failure", () => {
    const parsed = parse([
      "FAILED tests/test_a.py::test_x - boom",
      "PASSED tests/test_a.py::test_y",
      "1 failed in 0.1s",
    ]);
    assert.deepEqual(parsed.failures, []);
    assert.equal(parsed.status, "TEST_FAILURE");
  });

  test("without a short summary the FAILURES headings are the failures", () => {
    const parsed = parse([
      "=== FAILURES ===",
      "___ test_a ___",
      "E   AssertionError: one",
      "src/mod.py:4: AssertionError",
      "/usr/lib/python3/site.py:4: in x",
      "___ test_b ___",
      "E   ",
      "=== 2 failed in 0.1s ===",
    ]);
    assert.deepEqual(parsed.failures, [
      { name: "test_a", file: "src/mod.py", message: "AssertionError: one" },
      { name: "test_b", message: "failed" },
    ]);
  });

  test("a failure keeps at most eight E lines, and locations in site-packages or absolute are not its file", () => {
    const e = Array.from({ length: 10 }, (_, i) => `E   line ${i}`);
    const parsed = parse([
      "=== FAILURES ===",
      "___ t ___",
      ...e,
      "lib/site-packages/x.py:1: Error",
      "/abs/y.py:2: Error",
      "=== 1 failed in 0.1s ===",
    ]);
    assert.deepEqual(parsed.failures, [
      {
        name: "t",
        message: e
          .slice(0, 8)
          .map((l) => l.slice(4))
          .join("\n"),
      },
    ]);
  });

  test("headings are read only inside FAILURES and ERRORS sections", () => {
    const parsed = parse([
      "=== warnings summary ===",
      "___ not_a_test ___",
      "E   x",
      "=== 1 failed in 0.1s ===",
    ]);
    assert.deepEqual(parsed.failures, []);
  });
});

describe("pytest's collection errors", () => {
  test("an import error during collection is a BUILD_ERROR naming the module and the error", () => {
    const parsed = pytestParser.parse(fixture("importerr.q.log"));
    assert.equal(parsed.status, "BUILD_ERROR");
    assert.equal(
      parsed.reason,
      "tests/test_math.py did not load: ModuleNotFoundError: No module named 'missing_module'",
    );
  });

  test("the Interrupted banner, or an ERROR collecting heading, marks the run; without detail it says so", () => {
    assert.deepEqual(
      [parse(["!!!! Interrupted: 2 errors during collection !!!!", "2 errors in 0.1s"]).reason],
      ["errors during collection"],
    );
    assert.equal(
      parse(["!!!! Interrupted: 1 error during collection !!!!", "1 error in 0.1s"]).status,
      "BUILD_ERROR",
    );
    assert.equal(parse(["___ ERROR collecting tests/x.py ___", "1 error in 0.1s"]).status, "BUILD_ERROR");
    assert.equal(parse(["x ___ ERROR collecting tests/x.py ___", "1 error in 0.1s"]).status, "TEST_FAILURE");
    assert.equal(
      parse(["!!!! Interrupted: 1 error during collection", "1 error in 0.1s"]).status,
      "TEST_FAILURE",
    );
    // Collection errors of a run before the last summary do not carry over.
    assert.equal(
      parse(["!!!! Interrupted: 1 error during collection !!!!", "1 error in 0.1s", "2 passed in 0.1s"])
        .status,
      "PASS",
    );
  });

  test("ImportError lines name the module when there is no E line", () => {
    const parsed = parse([
      "=== ERRORS ===",
      "___ ERROR collecting tests/x.py ___",
      "ImportError while importing test module '/p/tests/x.py'.",
      "=== short test summary info ===",
      "ERROR tests/x.py",
      "!!!! Interrupted: 1 error during collection !!!!",
      "1 error in 0.1s",
    ]);
    assert.equal(
      parsed.reason,
      "tests/x.py did not load: ImportError while importing test module '/p/tests/x.py'.",
    );
  });
});

describe("pytest detection and JUnit", () => {
  test("it recognises its banners and closing lines, and nothing like them", () => {
    for (const text of [
      "======== test session starts ========",
      '<testsuite name="pytest" tests="1">',
      '<testsuites name="pytest tests">',
      "=== short test summary info ===",
      "===== 2 failed, 1 passed in 1.20s =====",
      "==== 1 passed in 0.1s (0:00:01) ====",
      "1 passed, 2 deselected in 0.1s",
      "3 errors in 0.1s",
      "no tests ran in 0.01s",
    ]) {
      assert.equal(pytestParser.detect(text), true, text);
    }
    for (const text of [
      "test session starts",
      "== test session starts",
      "1 passed",
      "1 passed in 0.1s!",
      " 1 passed in 0.1s",
      "=== 1 passed ===",
      "no tests ran",
      '<testsuite name="jest">',
      "short test summary info",
    ]) {
      assert.equal(pytestParser.detect(text), false, text);
    }
  });

  test("JUnit XML is read as JUnit unless the session banner is there too", () => {
    const junit = pytestParser.parse(fixture("fail.junit.xml"));
    assert.deepEqual([junit.status, junit.passed, junit.failed], ["TEST_FAILURE", 3, 2]);
    assert.deepEqual(
      junit.failures.map((f) => [f.name, f.file]),
      [
        ["TestStrings::test_concatenates", "tests/test_math.py"],
        ["test_throws_on_bad_input", "tests/test_math.py"],
      ],
    );
    const broken = pytestParser.parse(fixture("importerr.junit.xml"));
    assert.equal(broken.status, "BUILD_ERROR");
    assert.deepEqual(
      broken.failures.map((f) => [f.name, f.file]),
      [["tests/test_math.py", "tests/test_math.py"]],
    );
    const both = pytestParser.parse(
      `<testsuites name="pytest tests">\n=== test session starts ===\n2 passed in 0.1s`,
    );
    assert.deepEqual([both.status, both.passed], ["PASS", 2]);
  });

  test("a JUnit test without a module part has no file", () => {
    const xml =
      '<testsuites name="pytest tests"><testsuite name="pytest" tests="1" failures="1"><testcase classname="TestA" name="test_x"><failure message="m">m</failure></testcase></testsuite></testsuites>';
    assert.deepEqual(
      pytestParser.parse(xml).failures.map((f) => [f.name, f.file]),
      [["TestA::test_x", undefined]],
    );
  });
});

describe("pytest's text output, line by line", () => {
  const filler = (n: number) => Array.from({ length: n }, (_, i) => `    line ${i}`);

  test("a failure's first 400 lines are read, and no more", () => {
    const at = (before: number) =>
      parse([
        "=== FAILURES ===",
        "___ test_a ___",
        ...filler(before),
        "E   AssertionError: late",
        "=== 1 failed in 0.1s ===",
      ]).failures[0]?.message;
    assert.equal(at(399), "AssertionError: late");
    assert.equal(at(400), "failed");
  });

  test("section banners and headings are whole lines", () => {
    const failures = (lines: string[]) =>
      parse([...lines, "___ test_a ___", "E   AssertionError: x", "=== 1 failed in 0.1s ==="]).failures;
    assert.deepEqual(
      failures(["=== FAILURES ==="]).map((f) => f.name),
      ["test_a"],
    );
    assert.deepEqual(failures(["see === FAILURES ==="]), []);
    assert.deepEqual(failures(["=== FAILURES === (3)"]), []);
    const heading = (line: string) =>
      parse(["=== FAILURES ===", line, "E   AssertionError: x", "=== 1 failed in 0.1s ==="]).failures.map(
        (f) => f.name,
      );
    assert.deepEqual(heading("___ test_b ___"), ["test_b"]);
    assert.deepEqual(heading("x ___ test_b ___"), []);
    assert.deepEqual(heading("___ test_b ___ x"), []);
  });

  test("a closing line of 400 characters or more is not read; 399 is", () => {
    const line = (length: number) => {
      const body = " 3 passed in 0.1s ";
      const left = Math.floor((length - body.length) / 2);
      return `${"=".repeat(left)}${body}${"=".repeat(length - body.length - left)}`;
    };
    assert.equal(line(400).length, 400);
    assert.equal(parse([line(400)]).status, "UNPARSED");
    assert.equal(parse([line(399)]).status, "PASS");
  });

  test("an indented closing line is not pytest's, whatever rule follows it", () => {
    assert.equal(parse(["  3 passed in 0.1s ==="]).status, "UNPARSED");
    assert.equal(parse(["3 passed in 0.1s ==="]).status, "PASS");
  });

  test("collection errors: the Interrupted banner with any count, and ERROR collecting headings, are whole lines", () => {
    const status = (line: string) => parse([line, "12 errors in 0.1s"]).status;
    assert.equal(status("!!!! Interrupted: 12 errors during collection !!!!"), "BUILD_ERROR");
    assert.equal(status("!!!! Interrupted: 12 errors during collection !!!! (x)"), "TEST_FAILURE");
    assert.equal(status("see !!!! Interrupted: 12 errors during collection !!!!"), "TEST_FAILURE");
    assert.equal(status("___ ERROR collecting tests/x.py ___"), "BUILD_ERROR");
    assert.equal(status("___ ERROR collecting tests/x.py ___ x"), "TEST_FAILURE");
  });

  test("a short-summary line is read only from its start", () => {
    const parsed = parse([
      "=== short test summary info ===",
      "x FAILED tests/a.py::test_x - boom",
      "=== 1 failed in 0.1s ===",
    ]);
    assert.deepEqual(parsed.failures, []);
  });

  test("a collection error without a short summary is named by its module, and the reason names the file", () => {
    const parsed = parse([
      "=== ERRORS ===",
      "___ ERROR collecting tests/x.py ___",
      "E   SyntaxError: bad",
      "!!!! Interrupted: 1 error during collection !!!!",
      "=== 1 error in 0.1s ===",
    ]);
    assert.deepEqual(parsed.failures, [{ name: "tests/x.py", message: "SyntaxError: bad" }]);
    assert.equal(parsed.reason, "tests/x.py did not load: SyntaxError: bad");
    const listed = parse([
      "=== short test summary info ===",
      "ERROR tests/a.py::TestX - ImportError: gone",
      "!!!! Interrupted: 1 error during collection !!!!",
      "=== 1 error in 0.1s ===",
    ]);
    assert.equal(listed.reason, "tests/a.py did not load: ImportError: gone");
    const inName = parse([
      "=== FAILURES ===",
      "___ test_log[ERROR collecting x] ___",
      "E   AssertionError",
      "=== 1 failed in 0.1s ===",
    ]);
    assert.deepEqual(
      inName.failures.map((f) => f.name),
      ["test_log[ERROR collecting x]"],
    );
  });

  test("a failure's file is a location line's own, at its start, with any line number", () => {
    const file = (line: string) =>
      parse(["=== FAILURES ===", "___ t ___", "E   AssertionError", line, "=== 1 failed in 0.1s ==="])
        .failures[0]?.file;
    assert.equal(file("tests/test_a.py:123: AssertionError"), "tests/test_a.py");
    assert.equal(file("see tests/test_a.py:1: AssertionError"), undefined);
  });

  test("the ImportError line is the message only before any E line, trimmed, and only from its start", () => {
    const message = (...lines: string[]) =>
      parse(["=== ERRORS ===", "___ ERROR collecting tests/x.py ___", ...lines, "=== 1 error in 0.1s ==="])
        .failures[0]?.message;
    assert.equal(
      message("ImportError while importing test module '/p/x.py'.   ", "E   NameError: y"),
      "ImportError while importing test module '/p/x.py'.\nNameError: y",
    );
    assert.equal(
      message("E   NameError: y", "ImportError while importing test module '/p/x.py'."),
      "NameError: y",
    );
    assert.equal(message("  see ImportError while importing test module '/p/x.py'."), "failed");
  });
});

describe("pytest's JUnit XML, element by element", () => {
  const junit = (cases: string) =>
    pytestParser.parse(
      `<testsuites name="pytest tests"><testsuite name="pytest" tests="1">${cases}</testsuite></testsuites>`,
    );

  test("a test without a classname is named as it is, with no file", () => {
    const parsed = junit(
      '<testcase classname="" name="test_x"><failure message="boom">boom</failure></testcase>',
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.file]),
      [["test_x", undefined]],
    );
    assert.equal(parsed.status, "TEST_FAILURE");
  });

  test("a module with capitals inside its name is still the module; a capitalised part is a class", () => {
    const parsed = junit(
      '<testcase classname="tests.test_API.TestClient" name="test_get"><failure message="m">m</failure></testcase>',
    );
    assert.deepEqual(
      parsed.failures.map((f) => [f.name, f.file]),
      [["TestClient::test_get", "tests/test_API.py"]],
    );
  });

  test("only an error element whose message is `collection failure` is a module that did not load", () => {
    const fixtureError = junit(
      '<testcase classname="tests.test_a" name="test_db"><error message="failed on setup with &quot;fixture db not found&quot;">E</error></testcase>',
    );
    assert.equal(fixtureError.status, "TEST_FAILURE");
    const failure = junit(
      '<testcase classname="tests.test_a" name="test_b"><failure message="collection failure">F</failure></testcase>',
    );
    assert.equal(failure.status, "TEST_FAILURE");
    const load = junit(
      '<testcase classname="" name="tests.test_a"><error message="collection failure">E</error></testcase>',
    );
    assert.equal(load.status, "BUILD_ERROR");
  });

  test('a single <testsuite name="pytest"> root is read as JUnit', () => {
    const parsed = pytestParser.parse(
      '<?xml version="1.0"?>\n<testsuite name="pytest" tests="2" failures="1"><testcase classname="tests.test_a" name="test_one"/><testcase classname="tests.test_a" name="test_two"><failure message="m">m</failure></testcase></testsuite>',
    );
    assert.deepEqual([parsed.status, parsed.passed, parsed.failed], ["TEST_FAILURE", 1, 1]);
  });

  test("captured output inside the XML that mentions the session banner does not make it text", () => {
    const parsed = junit(
      '<testcase classname="tests.test_a" name="test_one"><system-out>printed: === test session starts ===</system-out></testcase>',
    );
    assert.deepEqual([parsed.status, parsed.passed], ["PASS", 1]);
  });

  test("JUnit markup is looked for only in the first 64 KiB", () => {
    const late = `${"x\n".repeat(40_000)}<testsuites name="pytest tests"><testsuite name="pytest" tests="1"><testcase classname="a" name="b"/></testsuite></testsuites>\n3 passed in 0.1s`;
    assert.equal(pytestParser.parse(late).passed, 3);
  });
});

describe("pytest detection, line by line", () => {
  test("the session banner and the short summary heading are whole lines", () => {
    for (const text of [
      "see === test session starts ===",
      "=== test session starts === (x)",
      "see === short test summary info ===",
      "=== short test summary info === (x)",
    ]) {
      assert.equal(pytestParser.detect(text), false, text);
    }
  });

  test("what pytest looks for is said when nothing recognised the output", () => {
    const { tried } = parseWithTrials("all fine\n");
    assert.match(
      tried.find((t) => t.runner === "pytest")?.why ?? "",
      /^no pytest's `test session starts` banner/,
    );
  });
});
