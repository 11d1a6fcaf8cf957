/**
 * `npm run bench`: every benchmark under bench/, one table. Each figure is a median over repeated runs
 * with min and max, next to its baseline measured in the same run, and the ratio (figure / baseline).
 * Nothing here fails on a time: the numbers are measured and printed, not asserted.
 *
 *   node --import tsx bench/run.ts [startup] [stories] [scale] [repo-size] [bus] [scoped] [parsers] [exec] [sandbox] [judging-layers] [serve] [parallel] [cost] [--json FILE]
 *
 * With no names, all of them. BENCH_MB sets the parser logs' size (default 20 here; 50 run alone).
 */
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { runBusBench } from "./bus.bench.js";
import { runCostBench } from "./cost.bench.js";
import { runExecBench } from "./exec.bench.js";
import { machine, type Row } from "./harness.js";
import { runJudgingLayersBench } from "./judging-layers.bench.js";
import { runParallelBench } from "./parallel.bench.js";
import { runParserBench } from "./parsers.bench.js";
import { runRepoSizeBench } from "./repo-size.bench.js";
import { runSandboxBench } from "./sandbox.bench.js";
import { runScaleBench } from "./scale.bench.js";
import { runScopedTestsBench } from "./scoped-tests.bench.js";
import { runServeBench } from "./serve.bench.js";
import { runStartupBench } from "./startup.bench.js";
import { measureStories, RUNS, STORIES, type StoryMeasures, storyRows } from "./story-overhead.bench.js";

let fifty: StoryMeasures | undefined;

const BENCHMARKS: Record<string, () => Promise<Row[]>> = {
  startup: runStartupBench,
  stories: async () => {
    fifty = await measureStories(STORIES, RUNS);
    return storyRows(fifty);
  },
  scale: () => runScaleBench(fifty),
  "repo-size": runRepoSizeBench,
  bus: runBusBench,
  scoped: runScopedTestsBench,
  parsers: () => runParserBench(Number(process.env.BENCH_MB ?? 20)),
  exec: runExecBench,
  sandbox: runSandboxBench,
  "judging-layers": runJudgingLayersBench,
  serve: runServeBench,
  parallel: runParallelBench,
  cost: runCostBench,
};

function number(value: number, unit: string): string {
  if (!Number.isFinite(value)) return "-";
  if (unit === "ev/s") return Math.round(value).toLocaleString("en");
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function formatTable(rows: readonly (Row & { group: string })[]): string {
  const header = ["benchmark", "figure", "median", "min", "max", "unit", "baseline", "ratio", "note"];
  const body = rows.map((r) => [
    r.group,
    r.name,
    number(r.median, r.unit),
    number(r.min, r.unit),
    number(r.max, r.unit),
    r.unit,
    number(r.baseline, r.unit),
    Number.isFinite(r.ratio) ? `${r.ratio.toFixed(r.ratio < 0.1 ? 4 : 2)}x` : "-",
    r.note ?? "",
  ]);
  const widths = header.map((h, i) =>
    Math.max(h.length, ...body.map((cells) => (cells[i] as string).length)),
  );
  const numeric = new Set([2, 3, 4, 6, 7]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) =>
        i === cells.length - 1
          ? c
          : numeric.has(i)
            ? c.padStart(widths[i] as number)
            : c.padEnd(widths[i] as number),
      )
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const jsonAt = args.indexOf("--json");
  const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
  const names = args.filter((a, i) => !a.startsWith("--") && (jsonAt < 0 || i !== jsonAt + 1));
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}`);
    process.exitCode = 2;
    return;
  }
  const selected =
    names.length > 0 ? Object.keys(BENCHMARKS).filter((n) => names.includes(n)) : Object.keys(BENCHMARKS);
  const host = machine();
  const started = performance.now();
  const rows: (Row & { group: string })[] = [];
  for (const name of selected) {
    const t = performance.now();
    process.stderr.write(`bench: ${name} …`);
    const got = await (BENCHMARKS[name] as () => Promise<Row[]>)();
    process.stderr.write(` ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
    rows.push(...got.map((r) => ({ ...r, group: name })));
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `gantry benchmarks — ${host.nproc} CPU(s), ${host.cpu}, node ${host.node}, load average ${host.load.toFixed(2)} at start` +
      `${host.time ? "" : " (no /usr/bin/time: no CPU figures, RSS polled)"}; ${seconds.toFixed(0)} s in all`,
  );
  console.log(formatTable(rows));
  if (jsonFile) writeFileSync(jsonFile, `${JSON.stringify({ machine: host, seconds, rows }, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
