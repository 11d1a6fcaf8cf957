/**
 * jest: the default and verbose reporters. Counts from `Tests:       2 failed, 3 passed, 5 total`
 * (the last one, for watch mode); failures from the `●` headings under each `FAIL file` line;
 * `● Test suite failed to run` is a BUILD_ERROR.
 */
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, headline, sample, splitLines, toInt, unparsed } from "./util.js";

const RUNNER = "jest";

function counts(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(",")) {
    const m = /(\d+)\s+([a-z]+)/.exec(part);
    if (m) out[m[2] as string] = toInt(m[1]);
  }
  return out;
}

function parse(text: string): ParsedTests {
  const lines = splitLines(text);
  let failures = new FailureList();
  let loadErrors: string[] = [];
  let file: string | undefined;
  let summary: { tests: Record<string, number>; failures: FailureList; loadErrors: string[] } | undefined;
  let noTests = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    // Most lines are test results (`    ✓ name`): only lines starting with P, F, T, N or `  ●` matter.
    const c = line.charCodeAt(0);
    if (
      c === 32
        ? line.charCodeAt(1) !== 80 && line.charCodeAt(1) !== 70 && line.charCodeAt(2) !== 0x25cf
        : c !== 80 && c !== 70 && c !== 84 && c !== 78
    ) {
      continue;
    }
    // `FAIL ./a.test.js (5.1 s)`; with colours the badge is padded: ` FAIL  ./a.test.js`.
    const header = /^ ?(PASS|FAIL) {1,2}(\S+)/.exec(line);
    if (header) {
      file = (header[2] as string).replace(/^\.\//, "");
      continue;
    }
    const testsLine = /^Tests:\s+(.*total)\s*$/.exec(line);
    if (testsLine) {
      summary = { tests: counts(testsLine[1] as string), failures, loadErrors };
      failures = new FailureList();
      loadErrors = [];
      continue;
    }
    if (/^No tests found, exiting with code \d/.test(line)) {
      noTests = true;
      continue;
    }
    const bullet = /^ {2}● (.+)$/.exec(line);
    if (!bullet) continue;
    const title = (bullet[1] as string).trim();
    if (title === "Console" || /^Console\b/.test(title)) continue;
    const message = messageAfter(lines, i + 1);
    if (title === "Test suite failed to run") {
      failures.add(failure(file ?? "(test suite)", message, file));
      loadErrors.push(`${file ?? "a test suite"} did not load: ${headline(message)}`);
      continue;
    }
    failures.add(failure(title.replace(/ › /g, " > "), message, file));
  }
  if (!summary) {
    if (noTests)
      return finish(RUNNER, {
        passed: 0,
        failed: 0,
        skipped: 0,
        failures: [],
        noTestsReason: "jest found no tests",
      });
    return unparsed(RUNNER, "no jest summary (Tests: ... total) found");
  }
  const t = summary.tests;
  const tally = {
    passed: t.passed ?? 0,
    failed: t.failed ?? 0,
    skipped: (t.skipped ?? 0) + (t.todo ?? 0),
    failures: summary.failures.items,
    noTestsReason: "jest ran no test",
  };
  if (summary.loadErrors.length)
    return finish(RUNNER, { ...tally, buildError: summary.loadErrors.join("; ") });
  return finish(RUNNER, tally);
}

/**
 * What jest prints under a `●` heading, up to the code frame or the stack. For a suite that failed to
 * run, the most telling line (a SyntaxError, a missing module) goes first.
 */
function messageAfter(lines: readonly string[], from: number): string {
  const kept: string[] = [];
  let telling: string | undefined;
  for (let j = from; j < lines.length && j < from + 200; j++) {
    const line = lines[j] as string;
    if (/^ {2}● /.test(line) || /^ ?(PASS|FAIL) {1,2}\S/.test(line) || /^Test Suites:/.test(line)) break;
    const t = line.trim();
    if (!telling && /^(?:SyntaxError|TypeError|ReferenceError|Cannot find module|error TS\d+)/.test(t))
      telling = t;
    if (/^at /.test(t) || /^>?\s*\d+ \|/.test(t) || /^\|/.test(t)) {
      if (telling || kept.length) break;
      continue;
    }
    if (t && kept.length < 8) kept.push(t);
  }
  if (telling && !kept.includes(telling)) return [telling, ...kept.slice(0, 3)].join("\n");
  return kept.join("\n") || "failed";
}

export const jestParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "jest's `Tests: N passed, N total` / `Test Suites:` summary",
  detect(text) {
    const s = sample(text);
    return (
      /^Tests:\s+.*\d+ total$/m.test(s) ||
      /^Test Suites:\s+/m.test(s) ||
      /^No tests found, exiting with code \d/m.test(s)
    );
  },
  parse,
};
