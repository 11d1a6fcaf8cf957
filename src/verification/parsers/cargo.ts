/**
 * cargo test (libtest output): one `running N tests` … `test result:` block per test binary and per
 * doc-test run; every `test result:` line is added up. A binary that started but never printed its
 * result (it crashed) is a failure; `error[E…]` / `could not compile` is a BUILD_ERROR.
 */
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, sample, splitLines, toInt, unparsed } from "./util.js";

const RUNNER = "cargo";
const RESULT =
  /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured; (\d+) filtered out/;

interface Block {
  target: string;
  failed: string[];
  details: Map<string, { message: string; file?: string }>;
}

export function parseCargo(text: string): ParsedTests {
  const lines = splitLines(text);
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let results = 0;
  let target = "";
  let block: Block | undefined;
  const failures = new FailureList();
  const compileErrors: { message: string; file?: string }[] = [];
  let couldNotCompile = false;
  const closeBlock = (crashed: boolean): void => {
    if (!block) return;
    for (const name of block.failed) {
      const detail = block.details.get(name);
      failures.add(failure(name, detail?.message || "failed", detail?.file ?? fileOfDocTest(name)));
    }
    if (crashed)
      failures.add(
        failure(block.target || "(test binary)", "the test binary stopped before printing its result"),
      );
    block = undefined;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s+(?:Running|Doc-tests) /.test(line)) {
      const rest = line.trim().replace(/^Running /, "");
      const cut = rest.indexOf(" (");
      target = cut > 0 ? rest.slice(0, cut) : rest;
      continue;
    }
    if (/^running \d+ tests?$/.test(line)) {
      closeBlock(true);
      block = { target, failed: [], details: new Map() };
      continue;
    }
    const result = RESULT.exec(line);
    if (result) {
      results++;
      passed += toInt(result[2]) + toInt(result[5]);
      failed += toInt(result[3]);
      skipped += toInt(result[4]);
      closeBlock(false);
      continue;
    }
    const outcome = /^test (.+) \.\.\. (ok|FAILED|ignored.*)$/.exec(line);
    if (outcome && block) {
      if (outcome[2] === "FAILED") block.failed.push(outcome[1] as string);
      continue;
    }
    const stdout = /^---- (.+) stdout ----$/.exec(line);
    if (stdout && block) {
      const name = stdout[1] as string;
      block.details.set(name, panicDetail(lines, i + 1));
      continue;
    }
    const err = /^error(?:\[E\d+\])?: (.*)$/.exec(line);
    if (err) {
      if (/^could not compile/.test(err[1] as string)) couldNotCompile = true;
      else if (
        !/^test failed|^doctest failed|^\d+ targets? failed/.test(err[1] as string) &&
        compileErrors.length < 20
      ) {
        const where = /^\s+--> ([^:]+):\d+/.exec(lines[i + 1] ?? "");
        compileErrors.push(
          where ? { message: line.trim(), file: where[1] as string } : { message: line.trim() },
        );
      }
    }
  }
  closeBlock(true);
  if (couldNotCompile) {
    for (const e of compileErrors) failures.add(failure("(compile)", e.message, e.file));
    const first = compileErrors[0];
    const reason = `the tests did not compile${first ? `: ${first.message}${first.file ? ` (${first.file})` : ""}` : ""}`;
    return finish(RUNNER, { passed, failed, skipped, failures: failures.items, buildError: reason });
  }
  if (results === 0 && failures.length === 0) return unparsed(RUNNER, "no `test result:` line found");
  return finish(RUNNER, {
    passed,
    failed,
    skipped,
    failures: failures.items,
    noTestsReason: "cargo test ran 0 tests",
  });
}

/** The panic message and its location from a `---- name stdout ----` block. */
function panicDetail(lines: readonly string[], from: number): { message: string; file?: string } {
  const kept: string[] = [];
  let file: string | undefined;
  let inPanic = false;
  for (let j = from; j < lines.length && j < from + 200; j++) {
    const line = lines[j] as string;
    if (/^---- .+ stdout ----$/.test(line) || /^failures:$/.test(line) || /^test result: /.test(line)) break;
    const panic =
      /panicked at '(.*)', ([^:]+):\d+:\d+/.exec(line) ?? /panicked at ([^:]+):\d+:\d+:?$/.exec(line);
    if (panic) {
      inPanic = true;
      if (panic.length === 2) file = panic[1];
      else {
        kept.push(panic[1] as string);
        file = panic[2];
      }
      continue;
    }
    if (!inPanic) continue;
    if (/^stack backtrace:|^note: /.test(line) || (!line.trim() && kept.length)) break;
    if (line.trim() && kept.length < 8) kept.push(line.trim());
  }
  return file ? { message: kept.join("\n"), file } : { message: kept.join("\n") };
}

/** Doc-tests are named `src/lib.rs - add (line 3)`. */
function fileOfDocTest(name: string): string | undefined {
  return /^(\S+\.rs) - /.exec(name)?.[1];
}

export const cargoParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "cargo's `running N tests` / `test result: ok. N passed;` lines",
  detect(text) {
    const s = sample(text);
    return (
      /^test result: (?:ok|FAILED)\. \d+ passed;/m.test(s) ||
      /^running \d+ tests?$/m.test(s) ||
      /^error: could not compile `[^`]+`/m.test(s)
    );
  },
  parse: parseCargo,
};
