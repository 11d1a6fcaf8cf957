/**
 * pytest: the default and `-q` output (closing line `2 failed, 3 passed in 1.50s`, or
 * `no tests ran in 0.01s`) and JUnit XML from `--junitxml`. Collection errors are a BUILD_ERROR.
 * xfailed tests count as skipped (as pytest's own JUnit XML does), xpassed as passed, errors
 * (in fixtures, setup or teardown) as failed, deselected tests not at all.
 */

import { junitToParsed } from "./junit.js";
import { type JUnitFailure, scanJUnit } from "./junit-xml.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, sample, splitLines, toInt, unparsed } from "./util.js";

const RUNNER = "pytest";
const SUMMARY_WORDS =
  "passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun|subtests? \\w+";
const SUMMARY_BODY = `((?:\\d+ (?:${SUMMARY_WORDS})(?:, )?)+|no tests ran) in [\\d.]+s(?: \\([\\d:.]+\\))?`;
const SUMMARY = new RegExp(`^=*\\s*${SUMMARY_BODY}\\s*=*$`);
/** The closing line anywhere in a log, `-q` (bare) or default (between `=` rules). */
const SUMMARY_LINE = new RegExp(`^(?:=+ )?${SUMMARY_BODY}(?: =+)?$`, "m");

interface Detail {
  message: string;
  file?: string;
}

function parseText(text: string): ParsedTests {
  const lines = splitLines(text);
  let summary: Record<string, number> | undefined;
  let noTestsRan = false;
  let collectionErrors = 0;
  let details = new Map<string, Detail>();
  let listed = new FailureList();
  // The failures of the run the last summary line closed (pytest-watch and friends print several).
  let summarised = { listed, details, collectionErrors };
  let section = "";
  let heading: string | undefined;
  let body: string[] = [];
  const closeHeading = (): void => {
    if (heading !== undefined) details.set(heading, detailOf(body));
    heading = undefined;
    body = [];
  };
  for (const line of lines) {
    const banner = /^={3,} (.+?) ={3,}$/.exec(line);
    if (banner) {
      closeHeading();
      section = banner[1] as string;
    }
    const m = line.length < 400 ? SUMMARY.exec(line) : null;
    if (m && (line.startsWith("=") || !line.startsWith(" "))) {
      closeHeading();
      summarised = { listed, details, collectionErrors };
      listed = new FailureList();
      details = new Map();
      collectionErrors = 0;
      if (m[1] === "no tests ran") {
        noTestsRan = true;
        summary = {};
      } else {
        summary = {};
        for (const part of (m[1] as string).split(", ")) {
          const [n, word] = part.split(" ", 2) as [string, string];
          const key = word.replace(/s$/, "");
          summary[key] = (summary[key] ?? 0) + toInt(n);
        }
        noTestsRan = false;
      }
      continue;
    }
    if (banner) continue;
    if (
      /^!+ Interrupted: (\d+) errors? during collection !+$/.test(line) ||
      /^_+ ERROR collecting .+ _+$/.test(line)
    ) {
      collectionErrors++;
    }
    if (section === "FAILURES" || section === "ERRORS") {
      const h = /^_{3,} (.+?) _{3,}$/.exec(line);
      if (h) {
        closeHeading();
        heading = h[1] as string;
        continue;
      }
      if (heading !== undefined && body.length < 400) body.push(line);
      continue;
    }
    // A failed subtest: `SUBFAILED(i=1) path::Class::test - message` (pytest 9), `SUBFAIL path::test - ...`
    // (the pytest-subtests plugin).
    const short = /^(FAILED|ERROR|SUBFAIL(?:ED)?(\(.*?\))?) (\S+?)(?: - (.*))?$/.exec(line);
    if (short && section === "short test summary info") {
      const [file, ...rest] = (short[3] as string).split("::");
      const params = short[2] ? ` ${short[2]}` : "";
      const name = (rest.length ? rest.join("::") : (file as string)) + params;
      const key = rest.join(".") + params;
      const detail =
        details.get(key) ??
        details.get(`ERROR at setup of ${key}`) ??
        details.get(`ERROR at teardown of ${key}`) ??
        details.get(`ERROR collecting ${file}`) ??
        details.get(name);
      listed.add(failure(name, detail?.message || short[4] || (short[1] as string), file));
    }
  }
  closeHeading();
  if (!summary) return unparsed(RUNNER, "no pytest summary line (N passed/failed in Xs) found");
  if (noTestsRan) {
    return finish(RUNNER, {
      passed: 0,
      failed: 0,
      skipped: 0,
      failures: [],
      noTestsReason: "pytest: no tests ran",
    });
  }
  const failures = summarised.listed;
  // Without a short summary (-rN), the FAILURES section headings are all there is.
  if (failures.length === 0) {
    for (const [name, detail] of summarised.details) {
      failures.add(failure(name.replace(/^ERROR collecting /, ""), detail.message || "failed", detail.file));
    }
  }
  const s = summary;
  const passed = (s.passed ?? 0) + (s.xpassed ?? 0);
  const failed = (s.failed ?? 0) + (s.error ?? 0);
  const skipped = (s.skipped ?? 0) + (s.xfailed ?? 0);
  if (summarised.collectionErrors > 0) {
    const first = failures.items[0];
    const reason = first
      ? `${first.file ?? first.name} did not load: ${first.message.split("\n").pop()}`
      : "errors during collection";
    return finish(RUNNER, { passed, failed, skipped, failures: failures.items, buildError: reason });
  }
  return finish(RUNNER, {
    passed,
    failed,
    skipped,
    failures: failures.items,
    noTestsReason: "pytest ran no test",
  });
}

/** The `E   ` lines of a failure, and the `path.py:12: Error` location line after them. */
function detailOf(body: readonly string[]): Detail {
  const errors: string[] = [];
  let file: string | undefined;
  for (const line of body) {
    if (line.startsWith("E ")) {
      const t = line.slice(1).trim();
      if (t && errors.length < 8) errors.push(t);
      continue;
    }
    const loc = /^([\w./\\-]+\.py):\d+: \w/.exec(line);
    if (loc && !/site-packages|^\//.test(loc[1] as string)) file = loc[1];
    const importError = /^(?:ImportError|ModuleNotFoundError) while importing test module '(.+)'/.exec(line);
    if (importError && errors.length === 0) errors.push(line.trim());
  }
  const message = errors.join("\n");
  return file ? { message, file } : { message };
}

/** pytest's classname is `package.module.Class`: the module becomes a file, the class part of the name. */
function describe(f: JUnitFailure): { name: string; file?: string } {
  if (!f.classname && f.message === "collection failure") {
    const file = `${f.name.replace(/\./g, "/")}.py`;
    return { name: file, file };
  }
  const parts = f.classname.split(".").filter(Boolean);
  let cut = parts.length;
  while (cut > 0 && /^[A-Z]/.test(parts[cut - 1] as string)) cut--;
  const classes = parts.slice(cut);
  const module = parts.slice(0, cut);
  const name = [...classes, f.name].join("::");
  return module.length ? { name, file: `${module.join("/")}.py` } : { name };
}

function parseJUnit(text: string): ParsedTests {
  const scan = scanJUnit(text);
  if (!scan) return unparsed(RUNNER, "no <testsuite> element found");
  return junitToParsed(RUNNER, scan, {
    describe,
    isLoadError: (f) => f.kind === "error" && f.message === "collection failure",
  });
}

export const pytestParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "pytest's `test session starts` banner or its closing line (`N passed, M warnings in 1.2s`)",
  detect(text) {
    const s = sample(text);
    return (
      /^=+ test session starts =+$/m.test(s) ||
      /<testsuite name="pytest"|<testsuites name="pytest tests"/.test(s) ||
      /^=+ short test summary info =+$/m.test(s) ||
      SUMMARY_LINE.test(s)
    );
  },
  parse(text) {
    const head = text.slice(0, 65536);
    if (/<testsuites? name="pytest/.test(head) && !/^=+ test session starts/m.test(head))
      return parseJUnit(text);
    return parseText(text);
  },
};
