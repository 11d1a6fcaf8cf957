/**
 * go test: plain output, `-v`, and `-json` (whose Output fields are the `-v` text, regrouped by
 * package). Results are summed over packages; a test with subtests counts through its subtests
 * (leaves only). Without -v, passing packages print only `ok  pkg 0.01s`: no counts, so UNPARSED
 * rather than a guess. `[build failed]` / `[setup failed]` is a BUILD_ERROR.
 */
import type { TestFailure } from "../../model/verify.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { FailureList, failure, finish, sample, splitLines, unparsed } from "./util.js";

const RUNNER = "go";
const PACKAGE_LINE = /^(ok|FAIL|\?)\s+(\S+)\s+(\d+(?:\.\d+)?s\b.*|\(cached\).*|\[.*)$/;
const RESULT_LINE = /^\s*--- (PASS|FAIL|SKIP): (\S+) \(/;
const LOG_LINE = /^\s+[\w.-]+\.go:\d+: /;
const UNCOUNTED =
  "go test without -v prints no per-test results for passing packages (only `ok  pkg 0.01s`); run it with -v or -json";

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
  failures: FailureList;
  buildErrors: string[];
  uncounted: string[];
  noTests: number;
  packages: number;
}

const RING = 256;

class PackageState {
  results = new Map<string, string>();
  /** Logs of failed tests, taken when their `--- FAIL` line comes (with -v the logs come first). */
  failLogs = new Map<string, string[]>();
  current: string | undefined;
  lastResult: string | undefined;
  sawRun = false;
  buildOutput: string[] = [];
  panic: string | undefined;
  /** The test whose `--- FAIL` line came just before the panic, and the first `_test.go` frame of its trace. */
  panicTest: string | undefined;
  panicFile: string | undefined;
  // The last RING log lines and the tests they belong to: no allocation per passing test.
  private ringName: (string | undefined)[] = [];
  private ringLine: string[] = [];
  private ringPos = 0;

  log(name: string | undefined, line: string): void {
    if (!name) return;
    this.ringName[this.ringPos] = name;
    this.ringLine[this.ringPos] = line;
    this.ringPos = (this.ringPos + 1) % RING;
  }

  logsOf(name: string): string[] {
    const found: string[] = [];
    for (let k = 0; k < RING && found.length < 8; k++) {
      const i = (this.ringPos + k) % RING;
      if (this.ringName[i] === name) found.push(this.ringLine[i] as string);
    }
    return found;
  }
}

function closePackage(pkg: string, status: string, rest: string, state: PackageState, totals: Totals): void {
  totals.packages++;
  if (/\[(?:build|setup) failed\]/.test(rest)) {
    const detail =
      state.buildOutput.find((l) => /\.go:\d+(?::\d+)?: /.test(l)) ?? state.buildOutput[0] ?? rest;
    totals.buildErrors.push(`${pkg} did not build: ${detail.trim()}`);
    const file = /^([\w./\\-]+\.go):\d+/.exec(detail.trim())?.[1];
    totals.failures.add(failure(pkg, state.buildOutput.slice(0, 8).join("\n") || rest, file ?? pkg));
    return;
  }
  if (status === "?" || rest.includes("[no test files]")) {
    totals.noTests++;
    return;
  }
  const parents = new Set<string>();
  for (const name of state.results.keys()) {
    for (let i = name.indexOf("/"); i > 0; i = name.indexOf("/", i + 1)) parents.add(name.slice(0, i));
  }
  let failedHere = 0;
  for (const [name, result] of state.results) {
    if (parents.has(name)) continue;
    if (result === "PASS") totals.passed++;
    else if (result === "SKIP") totals.skipped++;
    else {
      failedHere++;
      totals.failed++;
      const logs = state.failLogs.get(name) ?? state.logsOf(name);
      const file = /^([\w.-]+\.go):/.exec(logs[0] ?? "")?.[1];
      const message = logs.map((l) => l.replace(/^[\w.-]+\.go:\d+: /, "")).join("\n");
      const panicked = state.panic !== undefined && name === state.panicTest;
      const fallbackFile = panicked ? state.panicFile : undefined;
      const fallbackMessage = panicked ? state.panic : `failed in ${pkg}`;
      totals.failures.add(failure(name, message || fallbackMessage || "failed", file ?? fallbackFile ?? pkg));
    }
  }
  // Without -v a failing package prints its failures but not the tests that passed.
  if (status === "FAIL" && !state.sawRun) totals.uncounted.push(pkg);
  if (status === "FAIL" && failedHere === 0) {
    totals.failures.add(
      failure(
        pkg,
        state.panic ?? "the package failed without a failing test (panic, TestMain or timeout)",
        pkg,
      ),
    );
    return;
  }
  if (state.results.size === 0 && !rest.includes("[no tests to run]")) totals.uncounted.push(pkg);
  else if (state.results.size === 0) totals.noTests++;
}

export function parseGoText(text: string): ParsedTests {
  const totals: Totals = {
    passed: 0,
    failed: 0,
    skipped: 0,
    failures: new FailureList(),
    buildErrors: [],
    uncounted: [],
    noTests: 0,
    packages: 0,
  };
  let state = new PackageState();
  // A package's compile errors (`# pkg [pkg.test]` and the lines after it) can come before other packages'
  // -v output: they are kept by package and end where test output starts again.
  const buildOutputs = new Map<string, string[]>();
  let building: string[] | undefined;
  for (const line of splitLines(text)) {
    const c = line.charCodeAt(0);
    // Package lines start with o(k), F(AIL) or ?; everything else this parser reads is indented or starts
    // with "=== ", "--- ", "# " or "panic: ".
    const pkgLine = c === 111 || c === 70 || c === 63 ? PACKAGE_LINE.exec(line) : null;
    if (pkgLine) {
      const pkg = pkgLine[2] as string;
      state.buildOutput = buildOutputs.get(pkg) ?? state.buildOutput;
      closePackage(pkg, pkgLine[1] as string, pkgLine[3] as string, state, totals);
      state = new PackageState();
      building = undefined;
      continue;
    }
    if (line.startsWith("# ")) {
      building = [];
      buildOutputs.set(line.slice(2).split(" ")[0] as string, building);
      state.buildOutput = building;
      continue;
    }
    if (building) {
      if (!/^(?:=== |--- |PASS$|FAIL$|panic: )/.test(line)) {
        if (building.length < 20 && line.trim()) building.push(line);
        continue;
      }
      building = undefined;
    }
    const run = c === 61 ? /^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)/.exec(line) : null;
    if (run) {
      state.sawRun = true;
      state.current = run[1];
      continue;
    }
    const result = c === 45 || c === 32 || c === 9 ? RESULT_LINE.exec(line) : null;
    if (result) {
      const name = result[2] as string;
      state.results.set(name, result[1] as string);
      state.lastResult = name;
      if (result[1] === "FAIL" && state.sawRun) state.failLogs.set(name, state.logsOf(name));
      continue;
    }
    if ((c === 32 || c === 9) && LOG_LINE.test(line)) {
      state.log(state.sawRun ? state.current : state.lastResult, line.trim());
      continue;
    }
    if (line.startsWith("panic: ") && !state.panic) {
      state.panic = line.trim();
      state.panicTest = state.lastResult ?? state.current;
    } else if (c === 9 && state.panic && !state.panicFile)
      state.panicFile = /([\w.-]+_test\.go):\d+/.exec(line)?.[1];
  }
  if (state.results.size > 0) closePackage("(unfinished package)", "FAIL", "", state, totals);
  const failures: TestFailure[] = totals.failures.items;
  if (totals.packages === 0 && totals.failures.length === 0)
    return unparsed(RUNNER, "no go test package result (ok/FAIL pkg) found");
  const counts = { passed: totals.passed, failed: totals.failed, skipped: totals.skipped, failures };
  if (totals.buildErrors.length)
    return finish(RUNNER, { ...counts, buildError: totals.buildErrors.join("; ") });
  if (totals.failed > 0 || failures.length > 0) {
    return finish(RUNNER, totals.uncounted.length ? { ...counts, note: UNCOUNTED } : counts);
  }
  if (totals.uncounted.length) return unparsed(RUNNER, UNCOUNTED);
  return finish(RUNNER, { ...counts, noTestsReason: "go test found no tests to run" });
}

/** Rebuilds the -v text from `go test -json` events, package by package; other lines stay as they are. */
export function goJsonToText(text: string): string {
  const plain: string[] = [];
  const byPackage = new Map<string, string[]>();
  for (const line of splitLines(text)) {
    if (!line.startsWith("{")) {
      plain.push(line);
      continue;
    }
    if (!line.includes('"Output"')) continue;
    let event: { Package?: string; ImportPath?: string; Output?: string };
    try {
      event = JSON.parse(line);
    } catch {
      plain.push(line);
      continue;
    }
    if (typeof event.Output !== "string") continue;
    const key = event.Package ?? event.ImportPath ?? "";
    let chunks = byPackage.get(key);
    if (!chunks) {
      chunks = [];
      byPackage.set(key, chunks);
    }
    chunks.push(event.Output);
  }
  const parts = [plain.join("\n")];
  for (const chunks of byPackage.values()) parts.push(chunks.join(""));
  return parts.join("\n");
}

export const goParser: TestOutputParser = {
  name: RUNNER,
  looksFor: "go test -json events, `ok  pkg`/`FAIL pkg` lines or `--- PASS/FAIL: Test` lines",
  detect(text) {
    const s = sample(text);
    return (
      /^\{"(?:Time|Action|ImportPath)":.*"Action":"/m.test(s) ||
      /^(?:ok {2}|FAIL|\? {3})\t\S+\t/m.test(s) ||
      /^FAIL\t\S+ \[(?:build|setup) failed\]$/m.test(s) ||
      /^[ \t]*--- (?:PASS|FAIL|SKIP): \S+ \(\d/m.test(s)
    );
  },
  parse(text) {
    const isJson = /^\{"(?:Time|Action|ImportPath)":/m.test(text.slice(0, 65536));
    return parseGoText(isJson ? goJsonToText(text) : text);
  },
};
