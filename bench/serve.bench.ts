/**
 * `gantry serve` watching a live run: the same feature run with no server, and with a server that has 50
 * page clients on its event stream and answers 1,000 token-checked requests spread over the run. The
 * figure is the run's wall time; the baseline the same run with no server (goal: ratio ≤ 1.10). The
 * server's resident memory is sampled before the run and after it (flat: ratio near 1).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment, CLI, expectOk, median, REPO, type Row, row, timeCommand } from "./harness.js";
import { serveUrl } from "./serve-url.js";

const STORIES = Number(process.env.BENCH_SERVE_STORIES ?? 20);
const PAIRS = Number(process.env.BENCH_SERVE_PAIRS ?? 3);
const CLIENTS = 50;

/**
 * User + system CPU of a process so far and of the children it has waited for (`chrt` setting the
 * server's policy), in ms (clock ticks of 10 ms).
 */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return [11, 12, 13, 14].reduce((sum, k) => sum + Number(fields[k]), 0) * 10;
};

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

/**
 * BENCH_SERVE_SESSION=own: the server in a session of its own (setsid), as a server started from another
 * terminal than the run's is. Where Linux schedules sessions as groups (autogroup), the server's policy and
 * niceness then count only within its own session: it competes with the run as an equal group.
 */
const OWN_SESSION = process.env.BENCH_SERVE_SESSION === "own";

/**
 * BENCH_SERVE_CLI_B="<cli.js> [serve's options]": a second server (main's build, or this build with
 * `--nice 10`) measured in the same rounds: each round runs the run alone, served by BENCH_CLI's build as a
 * user starts it, and served by this one, in an order that turns by one.
 */
const [CLI_B_PATH, ...CLI_B_ARGS] = (process.env.BENCH_SERVE_CLI_B ?? "").trim().split(/\s+/).filter(Boolean);
const CLI_B = CLI_B_PATH ? resolve(CLI_B_PATH) : undefined;

async function startServe(
  root: string,
  cli: string,
  serveArgs: string[] = [],
): Promise<{ child: ChildProcess; url: string; token: string; startupCpuMs: number }> {
  // BENCH_SERVE_PROF=<dir>: the server writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_SERVE_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${resolve(process.env.BENCH_SERVE_PROF)}`]
    : [];
  const child = spawn(process.execPath, [...profile, cli, "serve", "--dir", root, ...serveArgs], {
    cwd: root,
    env: benchEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
    detached: OWN_SESSION,
  });
  const { url, token } = await serveUrl(child);
  // Its start-up (loading modules, compiling the body schemas), measured apart: it ends before the run starts.
  const startupCpuMs = cpuMs(child.pid as number);
  return { child, url, token, startupCpuMs };
}

/**
 * The clients (bench/serve-load.ts) in their own process at nice 19: in real use they are on other
 * machines, so they must not take the 2 cores from the run and the server being measured. With
 * BENCH_SERVE_IDLE_CLIENTS=1 they run under SCHED_IDLE (`chrt --idle 0`): only on a core nothing else wants,
 * which models remote clients more closely than nice 19 (which still takes a share of a busy core).
 */
const IDLE_CLIENTS = process.env.BENCH_SERVE_IDLE_CLIENTS === "1";
const CLIENTS_POLICY = IDLE_CLIENTS ? "SCHED_IDLE" : "nice 19";

/** What the server gets during a run: page clients on the event stream and requests spread over the run. */
interface Load {
  clients: number;
  requests: number;
}
const FULL: Load = { clients: CLIENTS, requests: 1000 };

/**
 * The clients (bench/serve-load.ts) in a process of their own at nice 19, under SCHED_IDLE too when `idle`:
 * in real use they sit on other machines. `args`: url, token, span in ms, clients, requests.
 */
export function spawnLoadClients(idle: boolean, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(
    idle ? "chrt" : "nice",
    [
      ...(idle ? ["--idle", "0", "nice"] : []),
      "-n",
      "19",
      process.execPath,
      "--import",
      "tsx",
      join(REPO, "bench", "serve-load.ts"),
      ...args,
    ],
    { cwd: REPO, env: benchEnvironment(env), stdio: ["pipe", "pipe", "inherit"] },
  );
}

async function startLoad(url: string, token: string, spanMs: number, load: Load) {
  const child = spawnLoadClients(IDLE_CLIENTS, [
    url,
    token,
    String(spanMs),
    String(load.clients),
    String(load.requests),
  ]);
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("the serve bench's clients did not connect in 30 s")),
      30_000,
    );
    const check = () => {
      if (out.includes("ready\n")) {
        clearTimeout(timer);
        child.stdout?.off("data", check);
        resolve();
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", () => reject(new Error("the serve bench's clients exited before they connected")));
  });
  return {
    child,
    go: () => child.stdin?.write("go\n"),
    finish: () =>
      new Promise<ClientsReport>((resolve, reject) => {
        child.once("exit", () => {
          const line = out.trim().split("\n").at(-1) ?? "";
          try {
            resolve(JSON.parse(line));
          } catch {
            reject(new Error(`the serve bench's clients said: ${out.slice(-500)}`));
          }
        });
        child.stdin?.end();
      }),
  };
}

/** What the clients say when the run has ended (bench/serve-load.ts). */
interface ClientsReport {
  sent: number;
  failed: number;
  read: number;
  cpuMs: number;
  /** Requests answered before the run ended: a server that yields must still answer during the run. */
  answeredInRun: number;
  /** The answers' time from request to answer, ms. */
  latency: { p50Ms: number; p95Ms: number; maxMs: number };
}
const NO_CLIENTS: ClientsReport = {
  sent: 0,
  failed: 0,
  read: 0,
  cpuMs: 0,
  answeredInRun: 0,
  latency: { p50Ms: 0, p95Ms: 0, maxMs: 0 },
};

/** `withServer`: false, no server at all; else the server, with that load (none: the server alone). */
async function timedRun(
  template: string,
  withServer: false | Load,
  serveCli = CLI,
  serveArgs: string[] = [],
) {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-serve-"));
  cpSync(template, root, { recursive: true });
  let server: Awaited<ReturnType<typeof startServe>> | undefined;
  let load: Awaited<ReturnType<typeof startLoad>> | undefined;
  try {
    let rssBefore = 0;
    let cpuBefore = 0;
    if (withServer) {
      server = await startServe(root, serveCli, serveArgs);
      if (withServer.clients + withServer.requests > 0)
        load = await startLoad(server.url, server.token, lastBaselineMs * 0.8, withServer);
      await new Promise((r) => setTimeout(r, 300));
      rssBefore = rssMb(server.child.pid as number);
      cpuBefore = cpuMs(server.child.pid as number);
    }
    const run = timeCommand(process.execPath, [CLI, "run", "--feature", "f", "--dir", root], {
      cwd: root,
      env: benchEnvironment(),
    });
    load?.go();
    const timed = expectOk(`gantry run on ${STORIES} stories${withServer ? " with serve" : ""}`, await run);
    const rssAfter = server ? rssMb(server.child.pid as number) : 0;
    const serverCpuMs = server ? cpuMs(server.child.pid as number) - cpuBefore : 0;
    const clients = (await load?.finish()) ?? NO_CLIENTS;
    return {
      wallMs: timed.wallMs,
      rssBefore,
      rssAfter,
      sent: clients.sent,
      failed: clients.failed,
      read: clients.read,
      serverCpuMs,
      clientsCpuMs: clients.cpuMs,
      answeredInRun: clients.answeredInRun,
      latency: clients.latency,
      runCpuMs: timed.cpuMs,
      startupCpuMs: server?.startupCpuMs ?? 0,
    };
  } finally {
    load?.child.kill("SIGTERM");
    server?.child.kill("SIGTERM");
    if (server) await new Promise((r) => server?.child.once("exit", r));
    rmSync(root, { recursive: true, force: true });
  }
}

let lastBaselineMs = 10_000;

/**
 * BENCH_SERVE_PARTS=1: the load taken apart, in the same bench and interleaved (each round runs every case
 * once, in an order that turns by one each round): the run with no server, with the server and no clients,
 * with the 50 streams only, with the 1,000 requests only, and with both. Per case: the run's wall time
 * against the same round's run with no server, the server's CPU during the run, and the clients'.
 */
const PARTS: { name: string; load: Load }[] = [
  { name: "serve, no clients", load: { clients: 0, requests: 0 } },
  { name: `serve + ${CLIENTS} streams only`, load: { clients: CLIENTS, requests: 0 } },
  { name: "serve + 1000 requests only", load: { clients: 0, requests: 1000 } },
  { name: `serve + ${CLIENTS} streams + 1000 requests`, load: FULL },
];

async function runServeParts(template: string): Promise<Row[]> {
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
      if (!part) lastBaselineMs = timed.wallMs;
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
async function runServeAB(template: string, cliB: string): Promise<Row[]> {
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
      runs[k] = await timedRun(template, k === 0 ? false : FULL, side.cli, "args" in side ? side.args : []);
      if (k === 0) lastBaselineMs = (runs[k] as { wallMs: number }).wallMs;
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
    row(`  requests answered during the run`, inRun[k] as number[], FULL.requests, "n"),
    row(`  the answers' latency, 95th percentile`, p95[k] as number[], Number.NaN, "ms"),
  ]);
}

export async function runServeBench(): Promise<Row[]> {
  const project = makeFeatureProject(STORIES);
  if (process.env.BENCH_SERVE_PARTS === "1" || CLI_B) {
    try {
      return CLI_B ? await runServeAB(project.template, CLI_B) : await runServeParts(project.template);
    } finally {
      project.remove();
    }
  }
  try {
    const plain: number[] = [];
    const served: number[] = [];
    const growth: number[] = [];
    const serverCpu: number[] = [];
    const runCpu: number[] = [];
    const runCpuAlone: number[] = [];
    const startup: number[] = [];
    const answeredInRun: number[] = [];
    const latencyP95: number[] = [];
    let rss = 0;
    let sent = 0;
    let failed = 0;
    for (let i = 0; i < PAIRS; i++) {
      // Interleaved, and every other pair the other way round: a machine getting busier or quieter
      // during the bench weighs on both sides alike.
      const baseFirst = i % 2 === 0;
      const base = baseFirst ? await timedRun(project.template, false) : undefined;
      if (base) lastBaselineMs = base.wallMs;
      const with50 = await timedRun(project.template, FULL);
      const after = base ?? (await timedRun(project.template, false));
      plain.push(after.wallMs);
      if (after.runCpuMs !== undefined) runCpuAlone.push(after.runCpuMs);
      lastBaselineMs = after.wallMs;
      process.stderr.write(
        `serve bench pair ${i + 1}/${PAIRS}: ${after.wallMs.toFixed(0)} ms alone, ${with50.wallMs.toFixed(0)} ms served, server CPU ${with50.serverCpuMs} ms, clients' CPU ${with50.clientsCpuMs} ms (${CLIENTS_POLICY}), RSS ${with50.rssBefore.toFixed(0)}→${with50.rssAfter.toFixed(0)} MB, read ${with50.read} B, ${with50.answeredInRun} answered during the run, latency p50/p95/max ${with50.latency.p50Ms}/${with50.latency.p95Ms}/${with50.latency.maxMs} ms\n`,
      );
      served.push(with50.wallMs);
      answeredInRun.push(with50.answeredInRun);
      latencyP95.push(with50.latency.p95Ms);
      startup.push(with50.startupCpuMs);
      growth.push(with50.rssAfter / with50.rssBefore);
      serverCpu.push(with50.serverCpuMs);
      if (with50.runCpuMs !== undefined) runCpu.push(with50.runCpuMs);
      rss = with50.rssAfter;
      sent = with50.sent;
      failed += with50.failed;
      if (with50.read === 0) throw new Error("the SSE clients read nothing");
    }
    return [
      row(
        `run of ${STORIES} stories, serve with ${CLIENTS} SSE clients + ${sent} requests`,
        served,
        median(plain),
        "ms",
        `baseline: the same run, no server; goal ratio ≤ 1.10; clients in their own process at ${CLIENTS_POLICY}${failed ? `; ${failed} requests failed` : ""}`,
      ),
      row(
        "the same, each pair's ratio (with serve / without)",
        served.map((ms, i) => ms / (plain[i] as number)),
        1,
        "x",
        "min and median of the pairs; the noise of a shared machine shows in max",
      ),
      row(
        "serve's own CPU over the run",
        serverCpu,
        runCpu.length ? median(runCpu) : Number.NaN,
        "ms",
        "baseline: the run's own CPU (gantry and its children)",
      ),
      row(
        "the run's own CPU, served",
        runCpu,
        runCpuAlone.length ? median(runCpuAlone) : Number.NaN,
        "ms",
        "baseline: the run's own CPU alone; more when served is work the run did again or slower (caches, the kernel), not waiting",
      ),
      row(
        "serve's start-up CPU (before the run starts, not in the figures above)",
        startup,
        Number.NaN,
        "ms",
        "loading its modules and compiling the body schemas; the bench starts the run after it",
      ),
      row(
        "requests answered during the run",
        answeredInRun,
        sent,
        "n",
        "baseline: requests sent; the rest were answered after the run ended",
      ),
      row(
        "the answers' latency during the run, 95th percentile of each pair",
        latencyP95,
        Number.NaN,
        "ms",
        "from the clients' side, request written to answer read",
      ),
      row(
        "serve RSS after the run / before",
        growth,
        1,
        "x",
        `flat is 1.00; last after ${rss.toFixed(0)} MB`,
      ),
    ];
  } finally {
    project.remove();
  }
}
