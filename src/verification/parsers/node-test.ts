/**
 * `node --test`: the spec reporter (`ℹ tests 4` summary), the tap reporter (`# tests 4`), the junit
 * reporter (`<!-- tests 4 -->` comments) and the dot reporter, which prints no counts at all.
 * Counts come from the runner's own summary; a test file that failed outside any test (node reports
 * it as a test named after the file) together with a load error in the output is a BUILD_ERROR.
 */
import type { TestFailure } from "../../model/verify.js";
import { failureMessage, looksLikePath } from "./junit.js";
import { type JUnitFailure, scanJUnit } from "./junit-xml.js";
import { scanTap } from "./tap.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, indentOf, LOAD_ERROR, sample, splitLines, unparsed } from "./util.js";

const RUNNER = "node-test";
const SUMMARY_KEYS = new Set([
  "tests",
  "suites",
  "pass",
  "fail",
  "cancelled",
  "skipped",
  "todo",
  "duration_ms",
]);
const DOT_REASON = "node's dot reporter prints no counts; run with --test-reporter=spec or tap";

/** The summary line that opens node's counts in the spec, tap and junit reporters. */
const SUMMARY_OPENS = /^(?:ℹ|#) tests \d+$|^\s*<!--\s*tests \d+\s*-->$/;
/** A passing top-level entry in the spec, tap and junit reporters; group 1 is its name. */
const PASSING_TOP_LEVEL = [
  /^✔ (.+?)(?: \([\d.]+m?s\))?$/,
  /^ok \d+ - (.+?)$/,
  /^\s*<testcase name="([^"]+)"[^>]*\/>$/,
];
/** An absolute path of a script file: node names a test file's own entry after the file. */
const TEST_FILE_PATH = /^(?:\/|[A-Za-z]:\\)[^\n]*\.[cm]?[jt]sx?$/;

/**
 * Test files that produced no test of their own: node reports such a file as one passing test named
 * after its path (the code under test may have ended the process before any test ran). They count in
 * node's `pass` total but executed nothing. Counted for the last summary in the output.
 */
export function testlessFiles(text: string): number {
  let current = 0;
  let closed = 0;
  for (const line of splitLines(text)) {
    if (SUMMARY_OPENS.test(line)) {
      closed = current;
      current = 0;
      continue;
    }
    if (line.length > 4096) continue;
    for (const pattern of PASSING_TOP_LEVEL) {
      const name = pattern.exec(line)?.[1];
      if (name !== undefined && TEST_FILE_PATH.test(name)) current++;
    }
  }
  return closed;
}

function fromSummary(summary: Map<string, number>, failures: TestFailure[], text: string): ParsedTests {
  if (!summary.has("pass") || !summary.has("fail"))
    return unparsed(RUNNER, "no node test summary (ℹ tests / # tests) found");
  const testless = testlessFiles(text);
  const passed = Math.max(0, (summary.get("pass") ?? 0) - testless);
  const failed = (summary.get("fail") ?? 0) + (summary.get("cancelled") ?? 0);
  const skipped = (summary.get("skipped") ?? 0) + (summary.get("todo") ?? 0);
  const fileLevel = failures.find(
    (f) => f.name.startsWith("/") || /^[A-Za-z]:\\/.test(f.name) || looksLikePath(f.name),
  );
  const loadLine = fileLevel ? findLoadError(text) : undefined;
  if (fileLevel && loadLine) {
    fileLevel.message = loadLine;
    fileLevel.file ??= fileLevel.name;
    return finish(RUNNER, {
      passed,
      failed,
      skipped,
      failures,
      buildError: `${fileLevel.name} did not load: ${loadLine}`,
    });
  }
  return finish(RUNNER, {
    passed,
    failed,
    skipped,
    failures,
    ...(testless > 0 && passed + failed > 0
      ? { note: `${testless} test file(s) ended without a test of their own; not counted as executed` }
      : {}),
    noTestsReason:
      testless > 0
        ? `no test ran: ${testless} test file(s) ended without a test of their own (node counts each as a passed test named after the file)`
        : "node's test runner reported tests 0",
  });
}

/** The error line of a file that did not load: `SyntaxError: ...`, `Error [ERR_MODULE_NOT_FOUND]: ...`. */
function findLoadError(text: string): string | undefined {
  let fallback: string | undefined;
  for (const line of splitLines(text)) {
    if (line.length >= 2000 || !LOAD_ERROR.test(line)) continue;
    const cleaned = line.replace(/^#\s*/, "").trim();
    if (/^at /.test(cleaned)) continue;
    if (/^[\w.]*Error(?: \[\w+\])?: /.test(cleaned)) return cleaned;
    fallback ??= cleaned;
  }
  return fallback;
}

function parseSpec(text: string): ParsedTests {
  const lines = splitLines(text);
  let summary = new Map<string, number>();
  let failures = new FailureList();
  let summarised = new FailureList();
  const suites: { indent: number; name: string }[] = [];
  const fileByName = new Map<string, string>();
  let inFailingSection = false;
  let location: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const indent = indentOf(raw);
    const line = raw.slice(indent).trimEnd();
    const stat = /^ℹ ([a-z_]+) (\d+(?:\.\d+)?)$/.exec(line);
    if (stat && SUMMARY_KEYS.has(stat[1] as string)) {
      if (stat[1] === "tests") {
        // A new summary (watch mode reruns): it covers the failures printed since the last one.
        summary = new Map();
        summarised = failures;
        failures = new FailureList();
      }
      summary.set(stat[1] as string, Number(stat[2]));
      continue;
    }
    if (line === "✖ failing tests:") {
      inFailingSection = true;
      continue;
    }
    if (inFailingSection && indent === 0 && /^[✔▶﹣ℹ]/.test(line)) inFailingSection = false;
    if (inFailingSection) {
      const at = /^test at (.+?)(?::\d+){1,2}$/.exec(line);
      if (at && indent === 0) location = at[1];
      else if (line.startsWith("✖ ") && indent === 0 && location) {
        const name = stripDuration(line.slice(2));
        if (!fileByName.has(name)) fileByName.set(name, location);
        location = undefined;
      }
      continue;
    }
    if (line.startsWith("▶ ")) {
      while (suites.length && (suites[suites.length - 1] as { indent: number }).indent >= indent)
        suites.pop();
      suites.push({ indent, name: stripDuration(line.slice(2)) });
      continue;
    }
    const mark = line[0];
    if (mark !== "✖" && mark !== "✔" && mark !== "﹣" && mark !== "⚠") continue;
    while (suites.length && (suites[suites.length - 1] as { indent: number }).indent > indent) suites.pop();
    const top = suites[suites.length - 1];
    // The title is only needed to tell a suite's closing line from a test, and for failures.
    if (mark !== "✖" && !(top && top.indent === indent)) continue;
    const name = stripDuration(line.slice(2));
    if (top && top.indent === indent && top.name === name) {
      suites.pop();
      continue;
    }
    if (mark !== "✖") continue;
    const body: string[] = [];
    for (let j = i + 1; j < lines.length; j++) {
      const next = lines[j] as string;
      if (next.trim() && indentOf(next) <= indent) break;
      body.push(next);
    }
    const path = suites.filter((s) => s.indent < indent).map((s) => s.name);
    failures.add(failure([...path, name].join(" > "), messageOf(body)));
  }
  for (const f of summarised.items) {
    const leaf = f.name.split(" > ").pop() as string;
    const file = fileByName.get(leaf);
    if (file) f.file = file;
  }
  return fromSummary(summary, summarised.items, text);
}

function stripDuration(title: string): string {
  return title
    .replace(/ # (?:TODO|SKIP)\b.*$| # .*$/, "")
    .replace(/ \([\d.]+m?s\)$/, "")
    .trim();
}

function messageOf(body: readonly string[]): string {
  const kept: string[] = [];
  for (const line of body) {
    const t = line.trim();
    if (/^at /.test(t)) break;
    // node prints a string error quoted (`'test failed'`); `'ab' !== 'abc'` is not one quoted string.
    if (t) kept.push(/^'[^']*'$/.test(t) ? t.slice(1, -1) : t);
    if (kept.length >= 8) break;
  }
  return kept.join("\n") || "failed";
}

function parseDot(text: string): ParsedTests {
  const lines = splitLines(text);
  const start = lines.indexOf("Failed tests:");
  const failures = new FailureList();
  if (start >= 0) {
    for (let i = start + 1; i < lines.length; i++) {
      const line = lines[i] as string;
      if (!line.startsWith("✖ ")) continue;
      const body: string[] = [];
      for (
        let j = i + 1;
        j < lines.length && (!(lines[j] as string).trim() || indentOf(lines[j] as string) > 0);
        j++
      ) {
        body.push(lines[j] as string);
      }
      const message = messageOf(body);
      if (!/^\d+ subtests? failed$/.test(message))
        failures.add(failure(stripDuration(line.slice(2)), message));
    }
  }
  return unparsed(RUNNER, DOT_REASON, failures.items);
}

function describeJUnit(f: JUnitFailure): { name: string; file?: string } {
  const name = f.suite && f.suite !== f.name ? `${f.suite} > ${f.name}` : f.name;
  return f.name.startsWith("/") ? { name, file: f.name } : { name };
}

function isDot(text: string): boolean {
  const first = text.trimStart().split("\n", 1)[0] ?? "";
  return first.length > 0 && /^[.X]+$/.test(first) && !/^ℹ tests \d+$/m.test(text);
}

export function parseNodeTest(text: string): ParsedTests {
  if (/<!--\s*tests \d+\s*-->/.test(text) || (text.includes("<testsuites") && !/^ℹ tests /m.test(text))) {
    const scan = scanJUnit(text);
    if (!scan) return unparsed(RUNNER, "no <testsuites> element found");
    const failures = new FailureList();
    for (const f of scan.failures) {
      const { name, file } = describeJUnit(f);
      failures.add(failure(name, failureMessage(f), file));
    }
    return fromSummary(scan.comments, failures.items, text);
  }
  const head = sample(text);
  if (/^TAP version \d+$/m.test(head) || /^ *# Subtest: /m.test(head)) {
    const scan = scanTap(text, { nested: true });
    return fromSummary(scan.comments, scan.failures, text);
  }
  if (isDot(text)) return parseDot(text);
  return parseSpec(text);
}

export const nodeTestParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "node --test's `ℹ tests N` / `# duration_ms` summary",
  detect(text) {
    const s = sample(text);
    return (
      /^ℹ (?:tests|duration_ms) \d/m.test(s) ||
      /^# (?:duration_ms|cancelled) \d/m.test(s) ||
      /<!--\s*(?:tests|duration_ms) \d[\d.]* -->/.test(s) ||
      (isDot(s) && (/^\s*[.X]+\s*$/.test(s) || /^Failed tests:$/m.test(s)))
    );
  },
  parse: parseNodeTest,
};
