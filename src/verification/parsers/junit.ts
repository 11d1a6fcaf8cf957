import type { TestFailure } from "../../model/verify.js";
import { type JUnitFailure, type JUnitScan, scanJUnit } from "./junit-xml.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, headline, LOAD_ERROR, sample, unparsed } from "./util.js";

export interface JUnitOptions {
  /** Names a failure; the default joins classname and name and takes the file from attributes. */
  describe?: (f: JUnitFailure) => { name: string; file?: string };
  /** Whether this failure means the tests did not load; the default asks for a file-level load error. */
  isLoadError?: (f: JUnitFailure) => boolean;
}

const PATH_LIKE = /^[\w@.\-/\\]+\.(?:[cm]?[jt]sx?|py|go|rs|rb|java|kt|cs|php|exs?|swift)$/;

export function looksLikePath(value: string): boolean {
  return value.length < 500 && PATH_LIKE.test(value);
}

export function defaultDescribe(f: JUnitFailure): { name: string; file?: string } {
  const file =
    f.file ?? (looksLikePath(f.suite) ? f.suite : looksLikePath(f.classname) ? f.classname : undefined);
  let name = f.name || f.classname || f.suite || "(unnamed test)";
  if (f.classname && f.classname !== f.name && f.classname !== file && !f.name.includes(f.classname)) {
    name = `${f.classname} > ${f.name}`;
  }
  return file ? { name, file } : { name };
}

/** A failure that is about the whole file (the producer named it after the file or the suite). */
export function isFileLevel(f: JUnitFailure): boolean {
  return (
    f.kind === "suite-error" ||
    f.name === f.suite ||
    (f.name !== "" && f.name === f.classname) ||
    looksLikePath(f.name)
  );
}

function defaultIsLoadError(f: JUnitFailure): boolean {
  return isFileLevel(f) && LOAD_ERROR.test(`${f.message}\n${f.type}\n${f.text.slice(0, 4000)}`);
}

/** The short message: the `message` attribute, else the body up to its stack trace. */
export function failureMessage(f: JUnitFailure): string {
  if (f.message.trim()) return f.message;
  const lines: string[] = [];
  for (const line of f.text.split("\n")) {
    if (/^\s+at /.test(line) || /^\s*❯ /.test(line)) break;
    if (line.trim()) lines.push(line.trimEnd());
    if (lines.length >= 8) break;
  }
  return lines.join("\n") || f.type || "failed";
}

export function junitToParsed(runner: string, scan: JUnitScan, options: JUnitOptions = {}): ParsedTests {
  const describe = options.describe ?? defaultDescribe;
  const isLoadError = options.isLoadError ?? defaultIsLoadError;
  const failures = new FailureList();
  let loadError: TestFailure | undefined;
  for (const f of scan.failures) {
    const { name, file } = describe(f);
    const entry = failure(name, failureMessage(f), file);
    failures.add(entry);
    if (!loadError && isLoadError(f)) loadError = entry;
  }
  const buildError = loadError
    ? `${loadError.file ?? loadError.name} did not load: ${headline(loadError.message)}`
    : undefined;
  return finish(runner, {
    passed: scan.passed,
    failed: scan.failed,
    skipped: scan.skipped,
    failures: failures.items,
    ...(buildError ? { buildError } : {}),
    noTestsReason: "the JUnit report lists no executed test",
  });
}

export function parseJUnitText(runner: string, text: string, options?: JUnitOptions): ParsedTests {
  const scan = scanJUnit(text);
  if (!scan) return unparsed(runner, "no <testsuite> element found in the output");
  return junitToParsed(runner, scan, options);
}

export const junitParser: TestOutputParser = {
  name: "junit",
  looksFor: "a JUnit XML `<testsuite>` element",
  detect: (text) => /<testsuites?[\s>/]/.test(sample(text)),
  parse: (text) => parseJUnitText("junit", text),
};
