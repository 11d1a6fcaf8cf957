import type { TestFailure } from "../../model/verify.js";
import { truncate } from "../../util/text.js";
import type { ParsedTests } from "./types.js";

/** Longest failure message kept; test logs can hold megabytes of diff for one assertion. */
export const MAX_MESSAGE = 2000;
/** Most failures kept per run; the counts stay exact beyond it. */
export const MAX_FAILURES = 500;

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
  /** Set when the tests did not load or compile: the status becomes BUILD_ERROR. */
  buildError?: string;
  /** Why zero executed tests, when the runner said so in its own words. */
  noTestsReason?: string;
  /** A note on counts that are known to be partial. */
  note?: string;
}

/** Turns counts into a ParsedTests with the status they imply on their own (the exit code comes later). */
export function finish(runner: string, tally: Tally): ParsedTests {
  const { passed, failed, skipped } = tally;
  const failures = tally.failures.slice(0, MAX_FAILURES);
  const base = { runner, executed: passed + failed, passed, failed, skipped, failures };
  if (tally.buildError !== undefined) return { ...base, status: "BUILD_ERROR", reason: tally.buildError };
  if (failed > 0 || failures.length > 0) {
    return tally.note
      ? { ...base, status: "TEST_FAILURE", reason: tally.note }
      : { ...base, status: "TEST_FAILURE" };
  }
  if (passed + failed === 0) {
    return {
      ...base,
      status: "NO_TESTS",
      reason: tally.noTestsReason ?? "the runner reported no executed test",
    };
  }
  return tally.note ? { ...base, status: "PASS", reason: tally.note } : { ...base, status: "PASS" };
}

export function unparsed(runner: string, reason: string, failures: TestFailure[] = []): ParsedTests {
  return {
    runner,
    status: "UNPARSED",
    executed: 0,
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: failures.slice(0, MAX_FAILURES),
    reason,
  };
}

export function splitLines(text: string): string[] {
  return text.split("\n");
}

export function toInt(value: string | undefined): number {
  if (value === undefined) return 0;
  const n = Number.parseInt(value, 10);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

/** The first `sampleHead` and last `sampleTail` characters: where runners print headers and summaries. */
export function sample(text: string, head = 65536, tail = 524288): string {
  if (text.length <= head + tail) return text;
  return `${text.slice(0, head)}\n${text.slice(text.length - tail)}`;
}

export const clip = (message: string) => truncate(message.trim(), MAX_MESSAGE + 1);

/** The first line of a message, with the next one when the first only introduces it (`...: `). */
export function headline(message: string): string {
  const [first = "", second] = message.split("\n", 2);
  return first.endsWith(":") && second ? `${first} ${second}` : first;
}

export function failure(name: string, message: string, file?: string): TestFailure {
  const entry: TestFailure = { name: name.trim(), message: clip(message) };
  if (file) entry.file = file;
  return entry;
}

export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === " " || line[i] === "\t")) i++;
  return i;
}

/**
 * Messages that mean a test file could not be loaded or compiled, as opposed to a test that ran and failed.
 * Kept to phrases the runners print themselves.
 */
export const LOAD_ERROR =
  /SyntaxError|Failed to load|Transform failed|Failed to parse source|Cannot find module|Cannot find package|ERR_MODULE_NOT_FOUND|does not provide an export named|Test suite failed to run|ModuleNotFoundError|ImportError|IndentationError|error TS\d+|collection failure/;

/** `file:///a/b.js:3:4`, `/a/b.js:3:4` or `(b.test.ts:3:4)` inside a stack line, as a plain path. */
export function fileFromStack(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    if (line.length > 1000) continue;
    const m = /(?:\(|at |\s)(file:\/\/)?(\/?[\w@.\-/\\]+\.[cm]?[jt]sx?):\d+(?::\d+)?\)?\s*$/.exec(line);
    if (!m?.[2]) continue;
    const path = m[2];
    if (path.includes("node_modules") || path.startsWith("node:") || path.includes("internal/")) continue;
    return path;
  }
  return undefined;
}

/** Failures in order, without the repeats some runners print (jest's closing summary, vitest reruns). */
export class FailureList {
  readonly items: TestFailure[] = [];
  private readonly seen = new Set<string>();

  add(entry: TestFailure): void {
    const key = `${entry.file ?? ""}\u0000${entry.name}`;
    if (this.seen.has(key) || this.items.length >= MAX_FAILURES) return;
    this.seen.add(key);
    this.items.push(entry);
  }

  get length(): number {
    return this.items.length;
  }
}
