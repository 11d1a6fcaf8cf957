/**
 * Stories at once: 8 independent stories whose agent sleeps 2 s, `gantry run --parallel` 1, 2 and 4.
 * The ideal at N workers is the agents' time spread over N (8 × 2 s / N) plus gantry's own time, taken
 * from the one-worker run (its wall less the 16 s of sleeping); goal: wall ≤ 1.3 × ideal at 4 workers.
 * Also the CPU of the process tree at 2 and 4 workers against 1, and the peak memory of the gantry process
 * at 4 workers (goal < 200 MB).
 * Run alone: `node --import tsx bench/parallel.bench.ts` (after `npm run build`).
 */
import { pathToFileURL } from "node:url";
import { AGENT, makeFeatureProject, timeGantry } from "./feature-project.js";
import { median, type Row, requireBuiltCli, row, type Timed } from "./harness.js";

const STORIES = 8;
const SLEEP_S = 2;
const WORKERS = [1, 2, 4];
const RUNS = Number(process.env.BENCH_PARALLEL_RUNS ?? 2);

export async function runParallelBench(): Promise<Row[]> {
  requireBuiltCli();
  const project = makeFeatureProject(STORIES, 0, {}, `sleep ${SLEEP_S}; ${AGENT}`);
  const timed = new Map<number, Timed[]>(WORKERS.map((n) => [n, []]));
  try {
    for (let i = 0; i < RUNS; i++)
      for (const n of WORKERS)
        timed.get(n)?.push(await timeGantry(project, undefined, ["--parallel", String(n)]));
  } finally {
    project.remove();
  }
  const agentsMs = STORIES * SLEEP_S * 1000;
  const own = Math.max(0, median((timed.get(1) ?? []).map((t) => t.wallMs)) - agentsMs);
  const rows: Row[] = [];
  for (const n of WORKERS) {
    const walls = (timed.get(n) ?? []).map((t) => t.wallMs);
    const ideal = agentsMs / n + own;
    rows.push(
      row(
        `${STORIES} stories, agent ${SLEEP_S} s, --parallel ${n}: wall`,
        walls,
        ideal,
        "ms",
        `baseline: ideal = ${STORIES} × ${SLEEP_S} s / ${n} + gantry's own ${Math.round(own)} ms (from --parallel 1)${n === 4 ? "; goal ratio ≤ 1.3" : ""}`,
      ),
    );
  }
  // The CPU of gantry's whole process tree (user + sys, /usr/bin/time): on a shared machine the steadier
  // figure; against --parallel 1 it is what judging each merged tree again and the worktrees cost.
  const cpu = (n: number) => (timed.get(n) ?? []).flatMap((t) => (t.cpuMs === undefined ? [] : [t.cpuMs]));
  const cpuOne = cpu(1);
  for (const n of WORKERS.slice(1))
    if (cpuOne.length > 0 && cpu(n).length > 0)
      rows.push(
        row(
          `--parallel ${n}: CPU of gantry's process tree`,
          cpu(n),
          median(cpuOne),
          "ms",
          "baseline: --parallel 1",
        ),
      );
  const rss = (timed.get(4) ?? []).flatMap((t) => (t.maxRssMb === undefined ? [] : [t.maxRssMb]));
  if (rss.length > 0)
    rows.push(row("--parallel 4: peak RSS of gantry", rss, 200, "MB", "baseline: the goal, 200 MB"));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const r of await runParallelBench())
    process.stdout.write(
      `${r.name}: median ${Math.round(r.median)} ${r.unit} (min ${Math.round(r.min)}, max ${Math.round(r.max)}), baseline ${Math.round(r.baseline)}, ratio ${r.ratio.toFixed(2)} — ${r.note ?? ""}\n`,
    );
}
