import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { parseNodeTest, testlessFiles } from "../../../src/verification/parsers/node-test.js";

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
