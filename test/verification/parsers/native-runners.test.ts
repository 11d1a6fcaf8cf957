// Edge cases for pytest, go test and cargo test. Samples that are not captured files from
// test/fixtures/parsers are synthetic: built from a real fixture or written after the runner's
// documented output, and labelled so.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parseTestOutput } from "../../../src/verification/parsers/registry.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/${path}`, import.meta.url), "utf8");
const counts = (text: string) => {
  const p = parseTestOutput(text);
  return [p.runner, p.status, p.passed, p.failed, p.skipped];
};

describe("pytest", () => {
  test("errors count as failed, xfailed as skipped, xpassed as passed, deselected not at all", () => {
    // Synthetic closing line in pytest's format.
    const text =
      "==== 3 failed, 10 passed, 2 skipped, 4 deselected, 1 xfailed, 1 xpassed, 2 errors, 5 warnings in 4.20s ====";
    assert.deepEqual(counts(text), ["pytest", "TEST_FAILURE", 11, 5, 3]);
  });

  test("without a short summary (-rN) the FAILURES headings name the failures (synthetic)", () => {
    const text = [
      "=================================== FAILURES ===================================",
      "_________________________________ test_div _________________________________",
      "",
      "    def test_div():",
      ">       assert 1 / 0",
      "E       ZeroDivisionError: division by zero",
      "",
      "tests/test_div.py:2: ZeroDivisionError",
      "========================= 1 failed, 2 passed in 0.05s ==========================",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.deepEqual(parsed.failures, [
      { name: "test_div", file: "tests/test_div.py", message: "ZeroDivisionError: division by zero" },
    ]);
  });

  test("an error in a fixture is a failure of that test, not a load error", () => {
    const parsed = parseTestOutput(fixture("pytest/setuperr.default.log"));
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual(parsed.failures, [
      {
        name: "test_reads",
        file: "tests/test_db.py",
        message: "ConnectionError: cannot reach the test database",
      },
    ]);
  });

  test("the last summary line counts (synthetic: a real run repeated, as pytest-watch does)", () => {
    const text = `${fixture("pytest/fail.q.log")}\n${fixture("pytest/pass.q.log")}`;
    assert.deepEqual(counts(text), ["pytest", "PASS", 4, 0, 0]);
  });
});

describe("go test", () => {
  test("results are added up over packages, subtests counted through their leaves", () => {
    assert.deepEqual(counts(fixture("go/fail.v.log")), ["go", "TEST_FAILURE", 3, 2, 0]);
  });

  test("-json events of several packages may interleave (synthetic, from the real -json capture)", () => {
    const lines = fixture("go/fail.json.log").trimEnd().split("\n");
    const mathx = lines.filter((l) => l.includes("fail/mathx"));
    const util = lines.filter((l) => l.includes("fail/util"));
    const interleaved: string[] = [];
    for (let i = 0; i < Math.max(mathx.length, util.length); i++) {
      if (mathx[i]) interleaved.push(mathx[i] as string);
      if (util[i]) interleaved.push(util[i] as string);
    }
    assert.deepEqual(counts(interleaved.join("\n")), ["go", "TEST_FAILURE", 3, 2, 0]);
  });

  test("a package that fails without a failing test (panic in TestMain) is a failure (synthetic)", () => {
    const text = [
      "panic: missing DATABASE_URL",
      "",
      "goroutine 1 [running]:",
      "FAIL\texample.com/app/db\t0.004s",
      "FAIL",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.deepEqual(parsed.failures, [
      { name: "example.com/app/db", file: "example.com/app/db", message: "panic: missing DATABASE_URL" },
    ]);
  });

  test("a panicking test gets the panic as its message and the test file from the trace", () => {
    const parsed = parseTestOutput(fixture("go/panic.v.log"));
    assert.deepEqual(parsed.failures, [
      {
        name: "TestIndex",
        file: "mathx_test.go",
        message: "panic: runtime error: index out of range [3] with length 0 [recovered]",
      },
    ]);
    // Without -v the passing tests of a failing package are not printed: the counts say so.
    assert.match(parseTestOutput(fixture("go/panic.plain.log")).reason ?? "", /without -v/);
  });

  test("[setup failed] is a BUILD_ERROR (synthetic, after go 1.20+ output)", () => {
    const text = [
      "# example.com/app/db",
      "db/db_test.go:4:2: no required module provides package example.com/missing; to add it:",
      "FAIL\texample.com/app/db [setup failed]",
      "FAIL",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.status, "BUILD_ERROR");
    assert.match(
      parsed.reason ?? "",
      /example\.com\/app\/db did not build: db\/db_test\.go:4:2: no required module/,
    );
  });

  test("plain output of passing packages is UNPARSED, never guessed", () => {
    const parsed = parseTestOutput(fixture("go/pass.plain.log"));
    assert.equal(parsed.status, "UNPARSED");
    assert.match(parsed.reason ?? "", /run it with -v or -json/);
  });

  test("cached -v results are read like fresh ones (synthetic)", () => {
    const text = ["=== RUN   TestA", "--- PASS: TestA (0.00s)", "PASS", "ok  \texample.com/a\t(cached)"].join(
      "\n",
    );
    assert.deepEqual(counts(text), ["go", "PASS", 1, 0, 0]);
  });
});

describe("cargo test", () => {
  test("every test binary's and the doc-tests' results are added up", () => {
    assert.deepEqual(counts(fixture("cargo/fail.nofailfast.log")), ["cargo", "TEST_FAILURE", 3, 3, 0]);
    assert.deepEqual(counts(fixture("cargo/skip.default.log")), ["cargo", "PASS", 5, 0, 2]);
  });

  test("a binary that crashed before its result line is a failure (synthetic, after libtest output)", () => {
    const text = [
      "     Running unittests src/lib.rs (target/debug/deps/calc-1234)",
      "",
      "running 2 tests",
      "test a ... ok",
      "error: test failed, to rerun pass `--lib`",
      "",
      "Caused by:",
      "  process didn't exit successfully: `target/debug/deps/calc-1234` (signal: 11, SIGSEGV: invalid memory reference)",
    ].join("\n");
    const parsed = parseTestOutput(text);
    assert.equal(parsed.status, "TEST_FAILURE");
    assert.equal(parsed.failures[0]?.name, "unittests src/lib.rs");
  });

  test("the older panic format gives message and file (synthetic, after rust < 1.73 output)", () => {
    const text = [
      "running 1 test",
      "test tests::t ... FAILED",
      "",
      "failures:",
      "",
      "---- tests::t stdout ----",
      "thread 'tests::t' panicked at 'boom', src/lib.rs:10:5",
      "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
      "",
      "failures:",
      "    tests::t",
      "",
      "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    ].join("\n");
    assert.deepEqual(parseTestOutput(text).failures, [
      { name: "tests::t", file: "src/lib.rs", message: "boom" },
    ]);
  });

  test("only ignored tests is NO_TESTS", () => {
    const text =
      "running 1 test\ntest t ... ignored\n\ntest result: ok. 0 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n";
    assert.deepEqual(counts(text), ["cargo", "NO_TESTS", 0, 0, 1]);
  });
});
