/**
 * vitest: the default and verbose reporters (`Test Files  1 failed | 1 passed (2)` /
 * `Tests  2 failed | 3 passed (5)`) and the junit reporter (`<testsuites name="vitest tests">`).
 * In watch mode the summary is printed again after every rerun: the last one counts, with the
 * failures printed since the one before it. A test file that failed to load or transform is a
 * BUILD_ERROR.
 */

import { isFileLevel, junitToParsed } from "./junit.js";
import { type JUnitFailure, scanJUnit } from "./junit-xml.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import {
  FailureList,
  failure,
  finish,
  headline,
  LOAD_ERROR,
  sample,
  splitLines,
  toInt,
  unparsed,
} from "./util.js";

const RUNNER = "vitest";

interface Counts {
  [word: string]: number;
}

/** `2 failed | 3 passed (5)` → {failed: 2, passed: 3}; `no tests` → {}. */
function counts(text: string): Counts {
  const out: Counts = {};
  for (const part of text.split("|")) {
    const m = /(\d+)\s+([a-z]+)/.exec(part);
    if (m) out[m[2] as string] = toInt(m[1]);
  }
  return out;
}

function parseText(text: string): ParsedTests {
  const lines = splitLines(text);
  let failures = new FailureList();
  let pendingLoadErrors: string[] = [];
  let files: Counts | undefined;
  let tests: Counts | undefined;
  let errors = 0;
  let summary:
    | { files: Counts; tests: Counts; errors: number; failures: FailureList; loadErrors: string[] }
    | undefined;
  let noFiles = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const fileLine = /^\s*Test Files\s{2,}(.*)$/.exec(line);
    if (fileLine) {
      files = counts(fileLine[1] as string);
      tests = undefined;
      errors = 0;
      continue;
    }
    const testLine = files && !tests ? /^\s*Tests\s{2,}(.*)$/.exec(line) : null;
    if (testLine && files) {
      tests = counts(testLine[1] as string);
      summary = { files, tests, errors, failures, loadErrors: pendingLoadErrors };
      failures = new FailureList();
      pendingLoadErrors = [];
      continue;
    }
    const errorLine = /^\s*Errors\s{2,}(\d+) errors?/.exec(line);
    if (errorLine && summary) {
      summary.errors = toInt(errorLine[1]);
      continue;
    }
    if (/^No test files found, exiting with code/.test(line)) {
      noFiles = true;
      continue;
    }
    const fail = /^ FAIL {2}(.+)$/.exec(line);
    if (!fail) continue;
    const title = (fail[1] as string).trim();
    if (/^Tests failed\b/.test(title)) continue;
    const message = messageAfter(lines, i + 1);
    const suite = /^(.+?) \[ (.+) \]$/.exec(title);
    if (suite) {
      const file = (suite[1] as string).trim();
      failures.add(failure(file, message, file));
      if (LOAD_ERROR.test(message) || LOAD_ERROR.test(lines.slice(i + 1, i + 6).join("\n"))) {
        pendingLoadErrors.push(`${file} did not load: ${headline(message)}`);
      }
      continue;
    }
    const sep = title.indexOf(" > ");
    const file = sep > 0 ? title.slice(0, sep) : undefined;
    failures.add(failure(sep > 0 ? title.slice(sep + 3) : title, message, file));
  }
  if (!summary) {
    if (noFiles)
      return finish(RUNNER, {
        passed: 0,
        failed: 0,
        skipped: 0,
        failures: [],
        noTestsReason: "vitest found no test files",
      });
    return unparsed(RUNNER, "no vitest summary (Test Files / Tests) found");
  }
  const t = summary.tests;
  const failed = t.failed ?? 0;
  const skipped = (t.skipped ?? 0) + (t.todo ?? 0);
  const passed = t.passed ?? 0;
  const list = [...summary.failures.items];
  if (summary.loadErrors.length) {
    return finish(RUNNER, {
      passed,
      failed,
      skipped,
      failures: list,
      buildError: summary.loadErrors.join("; "),
    });
  }
  // A failed file or an unhandled error fails the run even when every test passed.
  if (summary.errors > 0)
    list.push(failure("(unhandled errors)", `${summary.errors} unhandled error(s) during the run`));
  else if ((summary.files.failed ?? 0) > 0 && list.length === 0)
    list.push(failure("(test file)", "a test file failed"));
  return finish(RUNNER, { passed, failed, skipped, failures: list, noTestsReason: "vitest ran no test" });
}

/** The error vitest prints under a `FAIL` heading: up to the code frame or the stack. */
function messageAfter(lines: readonly string[], from: number): string {
  const kept: string[] = [];
  for (let j = from; j < lines.length && j < from + 40; j++) {
    const line = lines[j] as string;
    const t = line.trim();
    if (t.startsWith("❯ ") || /^at /.test(t) || /^⎯/.test(t) || /^ FAIL {2}/.test(line)) break;
    if (!t) {
      if (kept.length) break;
      continue;
    }
    kept.push(t);
    if (kept.length >= 8) break;
  }
  return kept.join("\n") || "failed";
}

function describe(f: JUnitFailure): { name: string; file?: string } {
  const file = f.classname || f.suite;
  const name = f.name.replace(/ &gt; /g, " > ");
  return file ? { name, file } : { name };
}

function parseJUnit(text: string): ParsedTests {
  const scan = scanJUnit(text);
  if (!scan) return unparsed(RUNNER, "no <testsuites> element found");
  return junitToParsed(RUNNER, scan, {
    describe,
    isLoadError: (f) => isFileLevel(f) && LOAD_ERROR.test(`${f.message}\n${f.text.slice(0, 4000)}`),
  });
}

export const vitestParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "vitest's ` RUN  v3` header or `Test Files  N passed` summary",
  detect(text) {
    const s = sample(text);
    return (
      /^ (?:RUN|DEV|RERUN) {1,2}v?\d/m.test(s) ||
      /^[ \t]*Test Files {2}\d+ (?:passed|failed)/m.test(s) ||
      /<testsuites name="vitest tests"/.test(s) ||
      /^No test files found, exiting with code \d/m.test(s)
    );
  },
  parse(text) {
    if (
      /<testsuites name="vitest tests"/.test(text.slice(0, 65536)) ||
      (/<testsuites[\s>]/.test(text) && !/^[ \t]*Test Files {2}/m.test(text))
    ) {
      return parseJUnit(text);
    }
    return parseText(text);
  },
};
