/**
 * mocha: the spec reporter (`3 passing (11ms)`, `2 failing`, `2 pending`, then numbered failure
 * details) and, through the TAP parser, the tap reporter. `Exception during run:` (a test file that
 * did not load) is a BUILD_ERROR; `Error: No test files found` is NO_TESTS.
 */
import { scanTap, tapToParsed } from "./tap.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import {
  FailureList,
  failure,
  fileFromStack,
  finish,
  indentOf,
  sample,
  splitLines,
  toInt,
  unparsed,
} from "./util.js";

const RUNNER = "mocha";

function parseSpec(text: string): ParsedTests {
  const lines = splitLines(text);
  let summary: { passed: number; failed: number; pending: number; failures: FailureList } | undefined;
  let exception: string | undefined;
  let noFiles = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const passing = /^\s+(\d+) passing \(/.exec(line);
    if (passing) {
      summary = { passed: toInt(passing[1]), failed: 0, pending: 0, failures: new FailureList() };
      continue;
    }
    if (summary) {
      const other = /^\s+(\d+) (failing|pending)$/.exec(line);
      if (other) {
        if (other[2] === "failing") summary.failed = toInt(other[1]);
        else summary.pending = toInt(other[1]);
        continue;
      }
      const numbered = summary.failed > 0 ? /^ {2}(\d+)\) (.*)$/.exec(line) : null;
      if (numbered) i = readFailure(lines, i, numbered[2] as string, summary.failures);
      continue;
    }
    if (/^\s*Exception during run: /.test(line))
      exception ??= line.trim().replace(/^Exception during run: /, "");
    else if (/^Error: No test files found/.test(line)) noFiles = true;
  }
  if (exception !== undefined) {
    const file = /\[ @(.+?) \]/.exec(exception)?.[1] ?? / imported from (\S+)$/.exec(exception)?.[1];
    const message = exception.replace(/\[ @.+? \]/, "");
    return finish(RUNNER, {
      passed: summary?.passed ?? 0,
      failed: summary?.failed ?? 0,
      skipped: summary?.pending ?? 0,
      failures: [failure(file ?? "(load)", message, file)],
      buildError: `${file ?? "a test file"} did not load: ${message}`,
    });
  }
  if (!summary) {
    if (noFiles)
      return finish(RUNNER, {
        passed: 0,
        failed: 0,
        skipped: 0,
        failures: [],
        noTestsReason: "mocha found no test files",
      });
    return unparsed(RUNNER, "no mocha summary (N passing) found");
  }
  return finish(RUNNER, {
    passed: summary.passed,
    failed: summary.failed,
    skipped: summary.pending,
    failures: summary.failures.items,
    noTestsReason: "mocha ran no test",
  });
}

/**
 * One numbered failure: its title may run over several lines (one per describe level) and ends with
 * a colon; the message follows, then the stack. Returns the index of the last line it consumed.
 */
function readFailure(lines: readonly string[], start: number, first: string, into: FailureList): number {
  const title: string[] = [first.trim()];
  let i = start;
  while (!(title[title.length - 1] as string).endsWith(":") && i + 1 < lines.length && title.length < 20) {
    const next = (lines[i + 1] as string).trim();
    if (!next) break;
    title.push(next);
    i++;
  }
  const last = title.length - 1;
  title[last] = (title[last] as string).replace(/:$/, "");
  const message: string[] = [];
  const stack: string[] = [];
  for (let j = i + 1; j < lines.length; j++) {
    const line = lines[j] as string;
    if (/^ {2}\d+\) /.test(line) && indentOf(line) === 2) break;
    const t = line.trim();
    if (/^at /.test(t)) {
      stack.push(t);
      if (stack.length >= 5) break;
      continue;
    }
    if (stack.length) break;
    if (t && message.length < 8 && !/^\+ expected - actual$/.test(t)) message.push(t);
    i = j;
  }
  into.add(failure(title.join(" > "), message.join("\n") || "failed", fileFromStack(stack)));
  return i;
}

export const mochaParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "mocha's `N passing (12ms)` line",
  detect(text) {
    const s = sample(text);
    return (
      /^[ \t]+\d+ passing \(\d+(?:\.\d+)?m?s\)$/m.test(s) ||
      /^[ \t]*Exception during run: /m.test(s) ||
      /^Error: No test files found: /m.test(s)
    );
  },
  parse(text) {
    if (
      !/^[ \t]+\d+ passing \(/m.test(text) &&
      /^(?:TAP version \d+|1\.\.\d+|(?:not )?ok \d+ )/m.test(text)
    ) {
      return { ...tapToParsed(RUNNER, scanTap(text)) };
    }
    return parseSpec(text);
  },
};
