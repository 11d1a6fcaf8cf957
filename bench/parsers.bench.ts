/**
 * Throughput of parseTestOutput on ~50 MB logs, one per runner family, against `wc -l` on the same
 * file. Run directly: `node --import tsx bench/parsers.bench.ts` (BENCH_MB=10 for a quicker run).
 * The logs are generated in a temporary directory in each runner's real format (see
 * test/fixtures/parsers for captured samples) and removed afterwards.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { parseTestOutput } from "../src/verification/parsers/registry.js";
import type { Row } from "./harness.js";

export type { Row };

const RUNS = 5;

/** Appends lines until the target size; every generator ends with its runner's summary. */
class Log {
  private parts: string[] = [];
  size = 0;
  constructor(readonly target: number) {}
  line(text: string): void {
    this.parts.push(text, "\n");
    this.size += text.length + 1;
  }
  get full(): boolean {
    return this.size >= this.target;
  }
  text(): string {
    return this.parts.join("");
  }
}

type Generator = (log: Log) => void;

const GENERATORS: Record<string, Generator> = {
  "vitest (verbose)": (log) => {
    log.line(" RUN  v3.2.7 /app");
    let n = 0;
    let failed = 0;
    while (!log.full) {
      n++;
      if (n % 1000 === 0) {
        failed++;
        log.line(` × src/module${n % 97}.test.ts > parser > handles case ${n} 4ms`);
        log.line(`   → expected ${n} to be ${n + 1} // Object.is equality`);
      } else log.line(` ✓ src/module${n % 97}.test.ts > parser > handles case ${n} 1ms`);
    }
    log.line("");
    log.line(" Test Files  97 failed (97)");
    log.line(`      Tests  ${failed} failed | ${n - failed} passed (${n})`);
  },
  "jest (verbose)": (log) => {
    let n = 0;
    let failed = 0;
    while (!log.full) {
      log.line(`PASS src/module${n}.test.js`);
      log.line("  parser");
      for (let i = 0; i < 20; i++, n++) log.line(`    ✓ handles case ${n} (${i % 7} ms)`);
      if (n % 2000 === 0) {
        failed++;
        log.line("  ● parser › handles a broken case");
        log.line("");
        log.line("    expect(received).toBe(expected) // Object.is equality");
        log.line("");
        log.line("      at Object.toBe (src/module.test.js:3:50)");
      }
    }
    log.line(`Test Suites: ${failed} failed, 10 passed, 10 total`);
    log.line(`Tests:       ${failed} failed, ${n} passed, ${n + failed} total`);
  },
  "node-test (spec)": (log) => {
    let n = 0;
    while (!log.full) {
      log.line(`▶ suite ${n}`);
      for (let i = 0; i < 10; i++, n++) log.line(`  ✔ handles case ${n} (0.${i}1234ms)`);
      log.line(`▶ suite ${n - 10} (1.2345ms)`);
    }
    for (const [k, v] of [
      ["tests", n],
      ["suites", n / 10],
      ["pass", n],
      ["fail", 0],
      ["cancelled", 0],
      ["skipped", 0],
      ["todo", 0],
    ]) {
      log.line(`ℹ ${k} ${v}`);
    }
    log.line("ℹ duration_ms 1234.5");
  },
  "node-test (tap)": (log) => {
    log.line("TAP version 13");
    let n = 0;
    while (!log.full) {
      n++;
      log.line(`# Subtest: handles case ${n}`);
      log.line(`ok ${n} - handles case ${n}`);
      log.line("  ---");
      log.line("  duration_ms: 0.123");
      log.line("  ...");
    }
    log.line(`1..${n}`);
    for (const [k, v] of [
      ["tests", n],
      ["suites", 0],
      ["pass", n],
      ["fail", 0],
      ["cancelled", 0],
      ["skipped", 0],
      ["todo", 0],
    ]) {
      log.line(`# ${k} ${v}`);
    }
    log.line("# duration_ms 1234.5");
  },
  "mocha (spec)": (log) => {
    let n = 0;
    log.line("");
    while (!log.full) {
      log.line(`  suite ${n}`);
      for (let i = 0; i < 10; i++, n++) log.line(`    ✔ handles case ${n}`);
    }
    log.line("");
    log.line(`  ${n} passing (12s)`);
  },
  "pytest (-v)": (log) => {
    log.line("============================= test session starts ==============================");
    let n = 0;
    while (!log.full) {
      n++;
      log.line(`tests/test_module${n % 50}.py::TestParser::test_case_${n} PASSED${" ".repeat(20)}[ 50%]`);
    }
    log.line(`============================== ${n} passed in 120.00s ==============================`);
  },
  "go (-v)": (log) => {
    let n = 0;
    let pkg = 0;
    while (!log.full) {
      pkg++;
      for (let i = 0; i < 50; i++, n++) {
        log.line(`=== RUN   TestCase${i}`);
        log.line(`    case_test.go:${i + 10}: checking ${n}`);
        log.line(`--- PASS: TestCase${i} (0.00s)`);
      }
      log.line("PASS");
      log.line(`ok  \texample.com/app/pkg${pkg}\t0.012s`);
    }
  },
  "go (-json)": (log) => {
    let pkg = 0;
    const t = "2026-01-01T00:00:00.000000000Z";
    while (!log.full) {
      pkg++;
      const p = `example.com/app/pkg${pkg}`;
      for (let i = 0; i < 50; i++) {
        log.line(`{"Time":"${t}","Action":"run","Package":"${p}","Test":"TestCase${i}"}`);
        log.line(
          `{"Time":"${t}","Action":"output","Package":"${p}","Test":"TestCase${i}","Output":"=== RUN   TestCase${i}\\n"}`,
        );
        log.line(
          `{"Time":"${t}","Action":"output","Package":"${p}","Test":"TestCase${i}","Output":"--- PASS: TestCase${i} (0.00s)\\n"}`,
        );
        log.line(`{"Time":"${t}","Action":"pass","Package":"${p}","Test":"TestCase${i}","Elapsed":0}`);
      }
      log.line(`{"Time":"${t}","Action":"output","Package":"${p}","Output":"ok  \\t${p}\\t0.012s\\n"}`);
      log.line(`{"Time":"${t}","Action":"pass","Package":"${p}","Elapsed":0.012}`);
    }
  },
  "cargo test": (log) => {
    let bin = 0;
    while (!log.full) {
      bin++;
      log.line(`     Running tests/suite${bin}.rs (target/debug/deps/suite${bin}-0123456789abcdef)`);
      log.line("");
      log.line("running 100 tests");
      for (let i = 0; i < 100; i++) log.line(`test module${bin}::tests::case_${i} ... ok`);
      log.line("");
      log.line(
        "test result: ok. 100 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      );
      log.line("");
    }
  },
  "junit xml": (log) => {
    log.line('<?xml version="1.0" encoding="UTF-8"?>');
    log.line('<testsuites name="ci">');
    let suite = 0;
    while (!log.full) {
      suite++;
      log.line(
        `  <testsuite name="com.example.Suite${suite}" tests="50" failures="1" errors="0" skipped="0">`,
      );
      for (let i = 0; i < 49; i++)
        log.line(`    <testcase classname="com.example.Suite${suite}" name="case${i}" time="0.001"/>`);
      log.line(`    <testcase classname="com.example.Suite${suite}" name="broken" time="0.002">`);
      log.line(
        '      <failure message="expected &lt;1&gt; but was &lt;2&gt;" type="AssertionError">at Suite.java:10</failure>',
      );
      log.line("    </testcase>");
      log.line("  </testsuite>");
    }
    log.line("</testsuites>");
  },
  "tap (perl)": (log) => {
    let n = 0;
    const lines: string[] = [];
    while (log.size + n * 4 < log.target) {
      n++;
      log.line(`ok ${n} - handles case ${n} of the parser`);
    }
    log.line(`1..${n}`);
    lines.length = 0;
  },
  "unrecognised log": (log) => {
    let n = 0;
    while (!log.full)
      log.line(`[info] ${++n} compiled module ${n % 300} in ${n % 17}ms, cache hit ratio 0.${n % 97}`);
  },
};

/** One generated log, by its GENERATORS name (for profiling a single parser). */
export function generateLog(name: string, megabytes: number): string {
  const generate = GENERATORS[name];
  if (!generate) throw new Error(`no generator "${name}"; known: ${Object.keys(GENERATORS).join(", ")}`);
  const log = new Log(megabytes * 1024 * 1024);
  generate(log);
  return log.text();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timeWc(file: string): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const result = spawnSync("wc", ["-l", file], { encoding: "utf8" });
    times.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`wc -l failed: ${result.stderr}`);
  }
  return median(times);
}

export async function runParserBench(megabytes = Number(process.env.BENCH_MB ?? 50)): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "gantry-parser-bench-"));
  const rows: Row[] = [];
  try {
    for (const [name, generate] of Object.entries(GENERATORS)) {
      const log = new Log(megabytes * 1024 * 1024);
      generate(log);
      const file = join(dir, `${name.replace(/\W+/g, "-")}.log`);
      writeFileSync(file, log.text());
      const text = readFileSync(file, "utf8");
      const times: number[] = [];
      let status = "";
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        const parsed = parseTestOutput(text);
        times.push(performance.now() - start);
        status = `${parsed.runner}/${parsed.status}`;
      }
      const baseline = timeWc(file);
      const med = median(times);
      rows.push({
        name: `${name} → ${status}`,
        median: med,
        min: Math.min(...times),
        max: Math.max(...times),
        unit: "ms",
        baseline,
        ratio: med / baseline,
        note: `${megabytes} MB, ${((megabytes * 1000) / med).toFixed(0)} MB/s; baseline: wc -l on the file`,
      });
      rmSync(file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function printTable(rows: Row[], megabytes: number): void {
  const header = ["log", "median ms", "min ms", "max ms", "MB/s", "wc -l ms", "parse/wc"];
  const body = rows.map((r) => [
    r.name,
    r.median.toFixed(0),
    r.min.toFixed(0),
    r.max.toFixed(0),
    ((megabytes * 1000) / r.median).toFixed(0),
    r.baseline.toFixed(0),
    `${r.ratio.toFixed(1)}x`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] as string).length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join("  ");
  console.log(
    `parseTestOutput on ${megabytes} MB logs, median of ${RUNS} runs (parse of the in-memory text; wc -l reads the file)`,
  );
  console.log(fmt(header));
  for (const row of body) console.log(fmt(row));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const megabytes = Number(process.env.BENCH_MB ?? 50);
  runParserBench(megabytes).then(
    (rows) => printTable(rows, megabytes),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
