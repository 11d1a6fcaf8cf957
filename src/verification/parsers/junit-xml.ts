/**
 * A small, forgiving scanner for JUnit-style XML. It reads only what test reports use
 * (`testsuites`, `testsuite`, `testcase`, `failure`, `error`, `skipped`, comments, CDATA), finds the
 * report even when other output precedes or follows it, adds up several reports printed one after
 * the other, and never backtracks: one pass with indexOf.
 */
import { MAX_FAILURES, MAX_MESSAGE } from "./util.js";
import { attr, attrInt, decodeEntities, tagEnd } from "./xml.js";

export interface JUnitFailure {
  name: string;
  classname: string;
  suite: string;
  file?: string;
  /** `failure`, `error`, or `suite-error` (an error element directly inside a testsuite). */
  kind: "failure" | "error" | "suite-error";
  message: string;
  type: string;
  text: string;
}

export interface JUnitScan {
  /** The `name` of the first root element, e.g. "vitest tests", "jest tests", "pytest", "Mocha Tests". */
  rootName: string;
  /** Names of every testsuite seen, in order (first 50). */
  suiteNames: string[];
  passed: number;
  failed: number;
  skipped: number;
  failures: JUnitFailure[];
  /** `<!-- key value -->` comments with a number, as node's junit reporter prints its totals. */
  comments: Map<string, number>;
}

interface SuiteState {
  name: string;
  /** The start tag's text, read for its totals when the suite closes. */
  tag: string;
  hasChildSuites: boolean;
  cases: number;
  failedCases: number;
  skippedCases: number;
}

interface CaseState {
  name: string;
  classname: string;
  file?: string;
  outcome: "passed" | "failed" | "skipped";
  failure?: JUnitFailure;
}

export function scanJUnit(text: string): JUnitScan | undefined {
  let pos = text.indexOf("<testsuite");
  if (pos < 0) return undefined;
  const scan: JUnitScan = {
    rootName: "",
    suiteNames: [],
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: [],
    comments: new Map(),
  };
  const suites: SuiteState[] = [];
  let depth = 0;
  let current: CaseState | undefined;
  const loose = { cases: 0, failed: 0, skipped: 0 };
  let capture: { parts: string[]; size: number; target?: JUnitFailure } | undefined;

  const closeSuite = (suite: SuiteState): void => {
    const tests = attrInt(suite.tag, "tests");
    const elementPassed = suite.cases - suite.failedCases - suite.skippedCases;
    if (suite.cases === 0 || suite.hasChildSuites || tests === undefined) {
      scan.passed += elementPassed;
      scan.failed += suite.failedCases;
      scan.skipped += suite.skippedCases;
      return;
    }
    // The suite's own totals, when it has them: they know about tests some producers list without a
    // marker (jest-junit's todo). Never let them hide a failure the elements show.
    const failed = Math.max(
      (attrInt(suite.tag, "failures") ?? 0) + (attrInt(suite.tag, "errors") ?? 0),
      suite.failedCases,
    );
    const skipped = attrInt(suite.tag, "skipped") ?? attrInt(suite.tag, "disabled") ?? suite.skippedCases;
    scan.failed += failed;
    scan.skipped += skipped;
    scan.passed += Math.max(0, tests - failed - skipped);
  };

  const closeCase = (): void => {
    if (!current) return;
    const suite = suites[suites.length - 1];
    const counter = suite ?? loose;
    counter.cases++;
    if (current.outcome === "failed") {
      if (suite) suite.failedCases++;
      else loose.failed++;
      if (current.failure && scan.failures.length < MAX_FAILURES) scan.failures.push(current.failure);
    } else if (current.outcome === "skipped") {
      if (suite) suite.skippedCases++;
      else loose.skipped++;
    }
    current = undefined;
  };

  const endCapture = (): void => {
    if (!capture) return;
    const target = capture.target;
    if (target && !target.text)
      target.text = decodeEntities(capture.parts.join("")).slice(0, MAX_MESSAGE * 2);
    capture = undefined;
  };

  while (pos >= 0 && pos < text.length) {
    const lt = text.indexOf("<", pos);
    if (lt < 0) break;
    if (capture && capture.size < MAX_MESSAGE * 2) {
      const chunk = text.slice(pos, lt);
      capture.parts.push(chunk);
      capture.size += chunk.length;
    }
    if (text.startsWith("<!--", lt)) {
      const end = text.indexOf("-->", lt + 4);
      if (end < 0) break;
      const m = /^\s*([A-Za-z_]+) (\d+(?:\.\d+)?)\s*$/.exec(text.slice(lt + 4, Math.min(end, lt + 200)));
      if (m && end - lt < 200) scan.comments.set(m[1] as string, Number(m[2]));
      pos = end + 3;
      continue;
    }
    if (text.startsWith("<![CDATA[", lt)) {
      const end = text.indexOf("]]>", lt + 9);
      if (end < 0) break;
      if (capture && capture.size < MAX_MESSAGE * 2) {
        capture.parts.push(
          text.slice(lt + 9, Math.min(end, lt + 9 + MAX_MESSAGE * 2)).replace(/&/g, "&amp;"),
        );
        capture.size += end - lt - 9;
      }
      pos = end + 3;
      continue;
    }
    const next = text[lt + 1] ?? "";
    if (next === "?" || next === "!") {
      const end = text.indexOf(">", lt);
      if (end < 0) break;
      pos = end + 1;
      continue;
    }
    const closing = next === "/";
    const nameStart = closing ? lt + 2 : lt + 1;
    const nameMatch = /^[A-Za-z_][\w:.-]*/.exec(text.slice(nameStart, nameStart + 64));
    if (!nameMatch) {
      // A stray `<` in text content (some producers do not escape it).
      if (capture) capture.parts.push("<");
      pos = lt + 1;
      continue;
    }
    const end = tagEnd(text, nameStart);
    if (end < 0) {
      if (capture) capture.parts.push("<");
      pos = lt + 1;
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    pos = end + 1;
    if (closing) {
      if (name === "failure" || name === "error" || name === "skipped") endCapture();
      else if (name === "testcase") closeCase();
      else if (name === "testsuite") {
        const suite = suites.pop();
        if (suite) closeSuite(suite);
      }
      if (name === "testsuite" || name === "testsuites") {
        depth--;
        if (depth <= 0) {
          // The report ended; another one may follow further down.
          depth = 0;
          closeCase();
          while (suites.length) closeSuite(suites.pop() as SuiteState);
          pos = text.indexOf("<testsuite", pos);
        }
      }
      continue;
    }
    const selfClosing = text[end - 1] === "/";
    const tag = text.slice(nameStart + nameMatch[0].length, selfClosing ? end - 1 : end);
    if (name === "testsuites" || name === "testsuite") {
      const suiteName = attr(tag, "name") ?? "";
      if (!scan.rootName && depth === 0) scan.rootName = suiteName;
      if (name === "testsuite") {
        if (scan.suiteNames.length < 50) scan.suiteNames.push(suiteName);
        const parent = suites[suites.length - 1];
        if (parent) parent.hasChildSuites = true;
        const suite: SuiteState = {
          name: suiteName,
          tag,
          hasChildSuites: false,
          cases: 0,
          failedCases: 0,
          skippedCases: 0,
        };
        if (selfClosing) closeSuite(suite);
        else suites.push(suite);
      }
      if (!selfClosing) depth++;
      else if (depth === 0) pos = text.indexOf("<testsuite", pos);
      continue;
    }
    if (name === "testcase") {
      closeCase();
      current = {
        name: (attr(tag, "name") ?? "").trim(),
        classname: (attr(tag, "classname") ?? "").trim(),
        outcome: "passed",
      };
      const file = attr(tag, "file");
      if (file) current.file = file;
      if (selfClosing) closeCase();
      continue;
    }
    if (name === "failure" || name === "error" || name === "skipped") {
      let target: JUnitFailure | undefined;
      if (name === "skipped") {
        if (current && current.outcome === "passed") current.outcome = "skipped";
      } else {
        const suite = suites[suites.length - 1];
        const entry: JUnitFailure = {
          name: current ? current.name : (suite?.name ?? ""),
          classname: current?.classname ?? "",
          suite: suite?.name ?? "",
          kind: current ? (name as "failure" | "error") : "suite-error",
          message: attr(tag, "message") ?? "",
          type: attr(tag, "type") ?? "",
          text: "",
        };
        if (current?.file) entry.file = current.file;
        if (current) {
          current.outcome = "failed";
          if (!current.failure) {
            current.failure = entry;
            target = entry;
          }
        } else {
          scan.failed++;
          if (scan.failures.length < MAX_FAILURES) scan.failures.push(entry);
          target = entry;
        }
      }
      if (!selfClosing)
        capture = target ? { parts: [], size: 0, target } : { parts: [], size: MAX_MESSAGE * 2 };
    }
  }
  endCapture();
  closeCase();
  while (suites.length) closeSuite(suites.pop() as SuiteState);
  scan.passed += loose.cases - loose.failed - loose.skipped;
  scan.failed += loose.failed;
  scan.skipped += loose.skipped;
  return scan;
}
