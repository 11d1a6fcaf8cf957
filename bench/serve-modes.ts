/**
 * The serve bench's other modes: BENCH_SERVE_PARTS=1 (the load taken apart) and BENCH_SERVE_CLI_B (two
 * builds in the same rounds). Both use the goal's load (the reads conditional; BENCH_SERVE_MIX=plain: the
 * old mix).
 */
import { relative, resolve } from "node:path";
import { CLI, median, REPO, type Row, row } from "./harness.js";
import {
  CLIENTS,
  CLIENTS_POLICY,
  type Load,
  MODES_LOAD,
  PAIRS,
  STORIES,
  span,
  timedRun,
} from "./serve-run.js";

/**
 * BENCH_SERVE_CLI_B="<cli.js> [serve's options]": a second server (main's build, or this build with
 * `--nice 10`) measured in the same rounds: each round runs the run alone, served by BENCH_CLI's build as a
 * user starts it, and served by this one, in an order that turns by one.
 */
const [CLI_B_PATH, ...CLI_B_ARGS] = (process.env.BENCH_SERVE_CLI_B ?? "").trim().split(/\s+/).filter(Boolean);
export const CLI_B = CLI_B_PATH ? resolve(CLI_B_PATH) : undefined;

/**
 * BENCH_SERVE_PARTS=1: the load taken apart, in the same bench and interleaved (each round runs every case
 * once, in an order that turns by one each round): the run with no server, with the server and no clients,
 * with the 50 streams only, with the 1,000 requests only, and with both. Per case: the run's wall time
 * against the same round's run with no server, the server's CPU during the run, and the clients'.
 */
const PARTS: { name: string; load: Load }[] = [
  { name: "serve, no clients", load: { clients: 0, requests: 0 } },
  { name: `serve + ${CLIENTS} streams only`, load: { clients: CLIENTS, requests: 0 } },
  { name: "serve + 1000 requests only", load: { ...MODES_LOAD, clients: 0 } },
  { name: `serve + ${CLIENTS} streams + 1000 requests`, load: MODES_LOAD },
];

export async function runServeParts(template: string): Promise<Row[]> {
  const cases = [undefined, ...PARTS];
  const wall = cases.map(() => [] as number[]);
  const ratio = PARTS.map(() => [] as number[]);
  const server = PARTS.map(() => [] as number[]);
  const clients = PARTS.map(() => [] as number[]);
  for (let round = 0; round < PAIRS; round++) {
    const order = cases.map((_, k) => (k + round) % cases.length);
    const runs: Awaited<ReturnType<typeof timedRun>>[] = [];
    for (const k of order) {
      const part = cases[k];
      const timed = await timedRun(template, part ? part.load : false);
      runs[k] = timed;
      if (!part) span.lastBaselineMs = timed.wallMs;
    }
    const alone = runs[0] as Awaited<ReturnType<typeof timedRun>>;
    runs.forEach((timed, k) => {
      wall[k]?.push(timed.wallMs);
      if (k === 0) return;
      ratio[k - 1]?.push(timed.wallMs / alone.wallMs);
      server[k - 1]?.push(timed.serverCpuMs);
      clients[k - 1]?.push(timed.clientsCpuMs);
    });
    process.stderr.write(
      `serve parts round ${round + 1}/${PAIRS}: ${runs.map((t, k) => `${cases[k]?.name ?? "no server"} ${t.wallMs.toFixed(0)} ms (server ${t.serverCpuMs} ms, clients ${t.clientsCpuMs} ms CPU)`).join("; ")}\n`,
    );
  }
  const base = median(wall[0] as number[]);
  return PARTS.flatMap((part, k) => [
    row(
      `run of ${STORIES} stories, ${part.name}`,
      wall[k + 1] as number[],
      base,
      "ms",
      "baseline: no server",
    ),
    row(
      `  the same, each round's ratio`,
      ratio[k] as number[],
      1,
      "x",
      "against the same round's run with no server",
    ),
    row(`  serve's own CPU over the run`, server[k] as number[], Number.NaN, "ms"),
    row(`  the clients' CPU over the run`, clients[k] as number[], Number.NaN, "ms", CLIENTS_POLICY),
  ]);
}

/** BENCH_SERVE_CLI_B: the run alone, served by BENCH_CLI's build (A) and by CLI_B's (B), interleaved. */
export async function runServeAB(template: string, cliB: string): Promise<Row[]> {
  const sides = [
    { name: "alone", cli: CLI },
    { name: "A", cli: CLI },
    { name: "B", cli: cliB, args: CLI_B_ARGS },
  ];
  const wall = sides.map(() => [] as number[]);
  const ratio = sides.map(() => [] as number[]);
  const server = sides.map(() => [] as number[]);
  const inRun = sides.map(() => [] as number[]);
  const p95 = sides.map(() => [] as number[]);
  for (let round = 0; round < PAIRS; round++) {
    const runs: Awaited<ReturnType<typeof timedRun>>[] = [];
    for (let j = 0; j < sides.length; j++) {
      const k = (j + round) % sides.length;
      const side = sides[k] as (typeof sides)[number];
      runs[k] = await timedRun(
        template,
        k === 0 ? false : MODES_LOAD,
        side.cli,
        "args" in side ? side.args : [],
      );
      if (k === 0) span.lastBaselineMs = (runs[k] as { wallMs: number }).wallMs;
    }
    const alone = (runs[0] as { wallMs: number }).wallMs;
    runs.forEach((timed, k) => {
      wall[k]?.push(timed.wallMs);
      ratio[k]?.push(timed.wallMs / alone);
      server[k]?.push(timed.serverCpuMs);
      inRun[k]?.push(timed.answeredInRun);
      p95[k]?.push(timed.latency.p95Ms);
      if (k > 0 && timed.read === 0) throw new Error("the SSE clients read nothing");
    });
    process.stderr.write(
      `serve A/B round ${round + 1}/${PAIRS}: alone ${alone.toFixed(0)} ms; ${[1, 2].map((k) => `${k === 1 ? "A" : "B"} ${runs[k]?.wallMs.toFixed(0)} ms (server ${runs[k]?.serverCpuMs} ms CPU, ${runs[k]?.answeredInRun} answered during the run, p95 ${runs[k]?.latency.p95Ms} ms)`).join("; ")}\n`,
    );
  }
  return [1, 2].flatMap((k) => [
    row(
      `run of ${STORIES} stories served by ${k === 1 ? "A" : "B"} (${[relative(REPO, sides[k]?.cli ?? ""), ...(k === 2 ? CLI_B_ARGS : [])].join(" ")})`,
      wall[k] as number[],
      median(wall[0] as number[]),
      "ms",
      "baseline: the run alone, same rounds",
    ),
    row(`  each round's ratio against the run alone`, ratio[k] as number[], 1, "x"),
    row(`  serve's own CPU over the run`, server[k] as number[], Number.NaN, "ms"),
    row(`  requests answered during the run`, inRun[k] as number[], MODES_LOAD.requests, "n"),
    row(`  the answers' latency, 95th percentile`, p95[k] as number[], Number.NaN, "ms"),
  ]);
}
