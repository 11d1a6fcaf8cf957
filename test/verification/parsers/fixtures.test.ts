import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parserNames, parseTestOutput } from "../../../src/verification/parsers/registry.js";
import { judgeStatus } from "../../../src/verification/status.js";

interface Expected {
  exitCode: number;
  judged: string;
  runner: string;
  status: string;
  executed: number;
  passed: number;
  failed: number;
  skipped: number;
  failureNames: string[];
}

const root = fileURLToPath(new URL("../../fixtures/parsers/", import.meta.url));
const expected: Record<string, Expected> = JSON.parse(readFileSync(join(root, "expected.json"), "utf8"));

function fixtureFiles(): string[] {
  const files: string[] = [];
  for (const dir of readdirSync(root).sort()) {
    if (!statSync(join(root, dir)).isDirectory()) continue;
    for (const name of readdirSync(join(root, dir)).sort()) files.push(`${dir}/${name}`);
  }
  return files;
}

const read = (file: string): string => readFileSync(join(root, file), "utf8");

describe("captured runner output", () => {
  test("every fixture file has an expected entry, and every entry a file", () => {
    const files = fixtureFiles();
    assert.deepEqual(
      files.filter((f) => !(f in expected)),
      [],
      "fixture files without an entry in expected.json",
    );
    assert.deepEqual(
      Object.keys(expected).filter((f) => !files.includes(f)),
      [],
      "expected.json entries without a file",
    );
    assert.ok(files.length >= 100);
  });

  for (const [file, want] of Object.entries(expected)) {
    test(file, () => {
      const parsed = parseTestOutput(read(file));
      assert.deepEqual(
        {
          runner: parsed.runner,
          status: parsed.status,
          executed: parsed.executed,
          passed: parsed.passed,
          failed: parsed.failed,
          skipped: parsed.skipped,
          failureNames: parsed.failures.map((f) => f.name).sort(),
        },
        {
          runner: want.runner,
          status: want.status,
          executed: want.executed,
          passed: want.passed,
          failed: want.failed,
          skipped: want.skipped,
          failureNames: [...want.failureNames].sort(),
        },
      );
      assert.equal(parsed.executed, parsed.passed + parsed.failed);
      if (parsed.status !== "PASS" && parsed.status !== "TEST_FAILURE")
        assert.ok(parsed.reason, "a reason is given");
      for (const f of parsed.failures) assert.ok(f.message.length > 0, `${f.name} has a message`);
      assert.equal(judgeStatus(parsed, { exitCode: want.exitCode, timedOut: false }).status, want.judged);
    });
  }

  test("naming the runner gives the same reading as detecting it", () => {
    for (const [file, want] of Object.entries(expected)) {
      const dir = file.split("/")[0] as string;
      if (!parserNames.includes(dir) || dir === "junit") continue;
      const parsed = parseTestOutput(read(file), { runner: dir });
      assert.equal(parsed.runner, dir, file);
      assert.deepEqual(
        [parsed.status, parsed.passed, parsed.failed, parsed.skipped],
        [want.status, want.passed, want.failed, want.skipped],
        file,
      );
    }
  });

  test("failures carry the file and message the runner printed", () => {
    const byName = (file: string) =>
      Object.fromEntries(parseTestOutput(read(file)).failures.map((f) => [f.name, f]));
    const vitest = byName("vitest/fail.default.log");
    assert.equal(vitest["strings > concatenates"]?.file, "math.test.js");
    assert.match(vitest["strings > concatenates"]?.message ?? "", /expected 'ab' to be 'abc'/);
    const pytest = byName("pytest/fail.default.log");
    assert.equal(pytest["TestStrings::test_concatenates"]?.file, "tests/test_math.py");
    assert.match(pytest.test_throws_on_bad_input?.message ?? "", /ValueError: boom: bad input/);
    const go = byName("go/fail.json.log");
    assert.equal(go["TestStrings/concatenates"]?.file, "mathx_test.go");
    assert.match(go.TestBadInput?.message ?? "", /boom: bad input/);
    const cargo = byName("cargo/fail.nofailfast.log");
    assert.equal(cargo["src/lib.rs - add (line 3)"]?.file, "src/lib.rs");
    assert.match(cargo["tests::concatenates"]?.message ?? "", /left: "ab"/);
    const jest = byName("jest/fail.color.log");
    assert.equal(jest["throws on bad input"]?.file, "math.test.js");
    const tap = byName("tap/fail.perl.log");
    assert.deepEqual(tap.concatenates, {
      name: "concatenates",
      file: "t/fail.t",
      message: "got: 'ab'\nexpected: 'abc'",
    });
    const junit = byName("junit/mocha-xunit.console.xml");
    assert.match(junit['compares <tags> & "quotes"']?.message ?? "", /'<a>' !== '<b>'/);
  });

  test("build errors name the file that did not load", () => {
    for (const [file, want] of Object.entries(expected)) {
      if (want.status !== "BUILD_ERROR") continue;
      const parsed = parseTestOutput(read(file));
      assert.match(parsed.reason ?? "", /did not (?:load|build|compile)|bailed out|none ran/, file);
    }
    assert.match(
      parseTestOutput(read("vitest/transform.default.log")).reason ?? "",
      /Transform failed with 1 error: .*Expected "\)" but found end of file/,
    );
    // go -v: one package's compile error printed before another package's test lines.
    for (const format of ["plain", "v", "json"]) {
      assert.match(
        parseTestOutput(read(`go/onebroken.${format}.log`)).reason ?? "",
        /^example\.com\/variants\/util did not build: util\/util\.go:3:37: undefined: undefinedThing$/,
        format,
      );
    }
    assert.match(
      parseTestOutput(read("pytest/broken.q.log")).reason ?? "",
      /SyntaxError: '\(' was never closed/,
    );
  });
});
