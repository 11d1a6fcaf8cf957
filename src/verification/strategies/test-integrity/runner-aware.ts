import { posix } from "node:path";
import type { TestIntegrityFinding } from "../../../model/events.js";
import { familyOf } from "../../test-conventions.js";
import type { FileLines } from "./patch-lines.js";

/** A line the story added to production code that asks whether a test runner is running it, or reaches into one. */
export interface RunnerAwareHit {
  line: number;
  /** What it reaches, e.g. `NODE_TEST_CONTEXT (set by node's test runner)`. */
  reaches: string;
  text: string;
}

interface Sign {
  reaches: string;
  pattern: RegExp;
}

const sign = (reaches: string, source: string, flags = ""): Sign => ({
  reaches,
  pattern: new RegExp(source, flags),
});

/**
 * What only a test run has: the variables runners set in the processes they test, their internal modules and
 * report hooks. Production code has no business asking; code that does can behave one way under the tests
 * and another in use, or rewrite the report the verdict is read from. The common spellings only: code
 * that builds the names at run time is not seen (docs/security.md).
 */
const JS: Sign[] = [
  sign("NODE_TEST_CONTEXT (set by node's test runner)", String.raw`\bNODE_TEST_CONTEXT\b`),
  sign("JEST_WORKER_ID (set by jest)", String.raw`\bJEST_WORKER_ID\b`),
  sign("VITEST (set by vitest)", String.raw`\bVITEST(?:_WORKER_ID|_POOL_ID|_MODE)?\b`),
  sign("node:test (the test runner's module)", String.raw`["'\`]node:test(?:\/reporters)?["'\`]`),
  sign("the test runner's arguments (--test)", String.raw`\b(?:execArgv|argv)\b.*["'\`]--test\b`),
  sign(
    "a test runner's internals",
    String.raw`["'\`](?:@jest\/(?:reporters|test-result|core)|vitest\/(?:node|reporters|runners))["'\`]`,
  ),
];
const PY: Sign[] = [
  sign(
    "PYTEST_CURRENT_TEST / PYTEST_VERSION (set by pytest)",
    String.raw`\bPYTEST_(?:CURRENT_TEST|VERSION|XDIST_WORKER)\b`,
  ),
  sign("pytest's internals (_pytest)", String.raw`\b_pytest\b`),
  sign(
    "pytest's report hooks",
    String.raw`\bpytest_(?:runtest_|report_|terminal_summary|sessionfinish|collection_modifyitems)\w*`,
  ),
  sign("pytest's report objects", String.raw`\b(?:TestReport|CollectReport|TerminalReporter)\b`),
  sign(
    "whether pytest is loaded (sys.modules)",
    String.raw`\bsys\.modules\b.*["']pytest["']|["']pytest["']\s+in\s+sys\.modules`,
  ),
  sign("unittest's result objects", String.raw`\bunittest\.(?:TestResult|TextTestResult|TextTestRunner)\b`),
];
const GO: Sign[] = [sign("testing.Testing() (true under go test)", String.raw`\btesting\.Testing\(\)`)];

const SIGNS: Record<string, Sign[]> = { js: JS, py: PY, go: GO };

const TEST_FOLDERS = new Set(["test", "tests", "__tests__", "testing", "spec"]);

/**
 * Whether `path` is production source whose added lines are scanned: not a test file (the caller's
 * conventions), nor in a tests folder, nor a conftest.py (test code may use its runner).
 */
export function scansRunnerAwareness(path: string, isTest: (path: string) => boolean): boolean {
  const family = familyOf(path);
  if (family === undefined || !(family in SIGNS) || isTest(path)) return false;
  if (posix.basename(path) === "conftest.py") return false;
  return !path
    .split("/")
    .slice(0, -1)
    .some((part) => TEST_FOLDERS.has(part));
}

/** Added lines of production file `path` that reach into the test runner; a line only moved is not new. */
export function addedRunnerAwareness(path: string, lines: FileLines): RunnerAwareHit[] {
  const signs = SIGNS[familyOf(path) ?? ""] ?? [];
  const removed = new Set(lines.removed.map((l) => l.text.trim()));
  const hits: RunnerAwareHit[] = [];
  for (const { line, text } of lines.added) {
    if (removed.has(text.trim())) continue;
    const found = signs.find((s) => s.pattern.test(text));
    if (found) hits.push({ line, reaches: found.reaches, text: text.trim() });
  }
  return hits;
}

/** The `runner-aware-code` findings of the production files' added lines. */
export function runnerAwareFindings(
  production: readonly string[],
  linesOf: (path: string) => FileLines,
): TestIntegrityFinding[] {
  return production.flatMap((path) =>
    addedRunnerAwareness(path, linesOf(path)).map((hit) => ({
      kind: "runner-aware-code" as const,
      file: path,
      line: hit.line,
      evidence: `production code reaches into the test runner (${hit.reaches}): ${hit.text}`,
    })),
  );
}
