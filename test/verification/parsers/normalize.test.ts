import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { normalizeOutput, renderLine } from "../../../src/verification/parsers/normalize.js";

const fixture = (path: string): string =>
  readFileSync(new URL(`../../fixtures/parsers/${path}`, import.meta.url), "utf8");

describe("normalizeOutput", () => {
  test("strips the colour codes of real runs", () => {
    for (const file of [
      "vitest/fail.color.log",
      "jest/fail.color.log",
      "pytest/fail.color.log",
      "cargo/fail.color.log",
    ]) {
      const raw = fixture(file);
      assert.ok(raw.includes("\x1b["), `${file} was captured with colours`);
      const clean = normalizeOutput(raw);
      assert.ok(!clean.includes("\x1b"), file);
    }
    assert.match(normalizeOutput(fixture("cargo/fail.color.log")), /^test tests::adds_numbers \.\.\. ok$/m);
    assert.match(normalizeOutput(fixture("jest/fail.color.log")), /^ FAIL {2}\.\/math\.test\.js$/m);
  });

  test("strips OSC hyperlinks, charset switches and full resets", () => {
    const raw =
      "\x1b]8;;https://example.com\x07link\x1b]8;;\x07 ok\x1b(B\x1b[m \x1bc\x1b[3Jdone\x1b]0;title\x1b\\";
    assert.equal(normalizeOutput(raw), "link ok done");
  });

  test("CRLF becomes LF", () => {
    assert.equal(normalizeOutput("a\r\nb\r\n"), "a\nb\n");
  });

  test("carriage returns keep what the terminal finally shows", () => {
    assert.equal(normalizeOutput("progress 10%\rprogress 100%\nnext"), "progress 100%\nnext");
    // A shorter overwrite leaves the tail of the longer text, as a terminal does...
    assert.equal(renderLine("abcdef\rxy"), "xycdef");
    // ...unless the line is erased first.
    assert.equal(renderLine("abcdef\r\x1b[2Kxy"), "xy");
    assert.equal(renderLine("abcdef\r\x1b[Kxy"), "xy");
    assert.equal(renderLine("abcdef\x1b[3G!"), "ab!def");
    assert.equal(renderLine("done\r"), "done");
    assert.equal(normalizeOutput("\x1b[32m✓\x1b[39m 3 passed\r\x1b[32m✓\x1b[39m 4 passed\n"), "✓ 4 passed\n");
  });

  test("strips GitHub Actions timestamps and ##[group] markers", () => {
    const raw = [
      "2024-01-01T00:00:00.0000000Z ##[group]Run npm test",
      "2024-01-01T00:00:00.1000000Z npm test",
      "2024-01-01T00:00:00.2000000Z ##[endgroup]",
      "2024-01-01T00:00:01.0000000Z  Test Files  1 passed (1)",
      "2024-01-01T00:00:02.0000000Z ##[error]Process completed with exit code 1.",
    ].join("\r\n");
    assert.equal(
      normalizeOutput(raw),
      [
        "Run npm test",
        "npm test",
        "",
        " Test Files  1 passed (1)",
        "Process completed with exit code 1.",
      ].join("\n"),
    );
  });

  test("GitLab section markers disappear", () => {
    const raw =
      "section_start:1700000000:step_script\r\x1b[0K\x1b[0;m$ npm test\nsection_end:1700000001:step_script\r\x1b[0K\n";
    assert.equal(normalizeOutput(raw), "$ npm test\n\n");
  });

  test("a byte-order mark goes", () => {
    assert.equal(normalizeOutput("\ufeffok 1 - a\n"), "ok 1 - a\n");
  });

  test("plain text passes through unchanged", () => {
    const text = fixture("go/fail.v.log");
    assert.equal(normalizeOutput(text), text);
  });
});
