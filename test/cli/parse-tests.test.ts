import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseTestsCommand } from "../../src/cli/parse-tests.js";

const fixture = (path: string): string =>
  fileURLToPath(new URL(`../fixtures/parsers/${path}`, import.meta.url));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) } },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

describe("gantry parse-tests", () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-parse-tests-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("--json prints exactly the parsed result", async () => {
    const c = capture();
    const code = await parseTestsCommand(fixture("vitest/fail.default.log"), { json: true }, c.io);
    assert.equal(code, 0);
    assert.equal(c.stderr(), "");
    const report = JSON.parse(c.stdout());
    assert.deepEqual(Object.keys(report), [
      "runner",
      "status",
      "executed",
      "passed",
      "failed",
      "skipped",
      "failures",
      "tried",
    ]);
    assert.deepEqual(
      [report.runner, report.status, report.executed, report.passed, report.failed, report.skipped],
      ["vitest", "TEST_FAILURE", 5, 3, 2, 0],
    );
    assert.deepEqual(report.failures[0], {
      name: "strings > concatenates",
      message: "AssertionError: expected 'ab' to be 'abc' // Object.is equality",
      file: "math.test.js",
    });
  });

  test("the reason comes along when there is one", async () => {
    const c = capture();
    await parseTestsCommand(fixture("go/pass.plain.log"), { json: true }, c.io);
    const report = JSON.parse(c.stdout());
    assert.equal(report.status, "UNPARSED");
    assert.match(report.reason, /-v or -json/);
  });

  test("without --json it prints a short summary", async () => {
    const c = capture();
    assert.equal(await parseTestsCommand(fixture("pytest/fail.q.log"), {}, c.io), 0);
    const text = c.stdout();
    assert.match(text, /^TEST_FAILURE {2}pytest: 5 executed \(3 passed, 2 failed\), 0 skipped$/m);
    assert.match(text, /✗ TestStrings::test_concatenates \(tests\/test_math\.py\)/);
    assert.match(text, /AssertionError: assert 'ab' == 'abc'/);
  });

  test("says which parsers were tried and why each declined", async () => {
    const c = capture();
    const stdin = Readable.from([Buffer.from("collected 3 items\nall 3 fine, trust me\n")]);
    assert.equal(await parseTestsCommand("-", {}, { ...c.io, stdin }), 0);
    const text = c.stdout();
    assert.match(text, /^UNPARSED {2}unknown: /m);
    assert.match(text, /^parsers tried:$/m);
    assert.match(
      text,
      /^ {2}pytest: declined — no pytest's `test session starts` banner or its closing line/m,
    );
    assert.match(text, /^ {2}go: declined — no go test -json events/m);
    assert.equal(text.match(/: declined — /g)?.length, 9, text);

    const read = capture();
    await parseTestsCommand(fixture("pytest/warnings.q.log"), {}, read.io);
    assert.match(read.stdout(), /^ {2}pytest: read — recognised: PASS, 3 passed, 0 failed, 0 skipped$/m);
    const plain = capture();
    await parseTestsCommand(fixture("go/pass.plain.log"), { json: true }, plain.io);
    assert.deepEqual(JSON.parse(plain.stdout()).tried[0], {
      runner: "go",
      outcome: "unreadable",
      why: `recognised, but ${JSON.parse(plain.stdout()).reason}`,
    });
  });

  test("reads standard input for -", async () => {
    const c = capture();
    const stdin = Readable.from([Buffer.from("1..2\nok 1 - a\n"), Buffer.from("ok 2 - b\n")]);
    assert.equal(await parseTestsCommand("-", { json: true }, { ...c.io, stdin }), 0);
    assert.deepEqual(JSON.parse(c.stdout()).passed, 2);
  });

  test("--runner forces a parser", async () => {
    const c = capture();
    await parseTestsCommand(fixture("mocha/fail.tap.log"), { json: true, runner: "mocha" }, c.io);
    assert.equal(JSON.parse(c.stdout()).runner, "mocha");
  });

  test("--exit-code judges the status the way verify does", async () => {
    const judged = async (file: string, exitCode: string) => {
      const c = capture();
      assert.equal(await parseTestsCommand(fixture(file), { json: true, exitCode }, c.io), 0);
      return JSON.parse(c.stdout());
    };
    // jest-junit leaves out a suite that failed to load: the XML alone reads as a pass, the exit code not.
    const dropped = await judged("junit/jest-junit.broken.xml", "1");
    assert.equal(dropped.status, "UNPARSED");
    assert.match(dropped.reason, /summary disagrees with the exit code: .* exited with code 1/);
    assert.equal((await judged("junit/jest-junit.pass.xml", "0")).status, "PASS");
    assert.equal((await judged("pytest/zero.q.log", "5")).status, "NO_TESTS");
    assert.equal((await judged("go/broken.v.log", "2")).status, "BUILD_ERROR");
    assert.equal((await judged("tap/pass.perl.log", "127")).status, "BUILD_ERROR");
  });

  test("bad usage returns 2 with one line on stderr", async () => {
    const cases: [string, Parameters<typeof parseTestsCommand>[1], RegExp][] = [
      [join(dir, "missing.log"), {}, /cannot read .*missing\.log: no such file/],
      [dir, {}, /cannot read .*: is a directory/],
      [
        fixture("tap/pass.perl.log"),
        { runner: "karma" },
        /unknown runner "karma"; valid runners: go, cargo, .*tap/,
      ],
      [fixture("tap/pass.perl.log"), { exitCode: "1.5" }, /--exit-code must be an integer, got "1\.5"/],
      [fixture("tap/pass.perl.log"), { exitCode: "abc" }, /--exit-code must be an integer/],
      ["", {}, /missing FILE/],
    ];
    for (const [file, options, message] of cases) {
      const c = capture();
      assert.equal(await parseTestsCommand(file, options, c.io), 2, String(message));
      assert.equal(c.stdout(), "");
      assert.match(c.stderr(), message);
      assert.equal(c.stderr().trimEnd().split("\n").length, 1);
    }
  });
});
