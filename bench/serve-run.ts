/**
 * One run of the serve bench's feature, timed, with no server or with `gantry serve` and the clients'
 * load (bench/serve-load.ts): what bench/serve.bench.ts and its other modes (bench/serve-modes.ts) share.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchEnvironment, CLI, expectOk, REPO, timeCommand } from "./harness.js";
import { type ClientsProgram, clientsCommand, DEFAULT_CLIENTS } from "./serve-load-program.js";
import { serveUrl } from "./serve-url.js";

export const STORIES = Number(process.env.BENCH_SERVE_STORIES ?? 20);
export const PAIRS = Number(process.env.BENCH_SERVE_PAIRS ?? 3);
export const CLIENTS = 50;

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
export const CLIENTS_POLICY = IDLE_CLIENTS ? "SCHED_IDLE" : "nice 19";

/**
 * bench/serve-trivial.ts (fixed bytes for every request, no checks: the floor of the traffic itself) under
 * SCHED_IDLE at niceness 19, as `gantry serve` runs: the command line the floor and side-by-side benches start.
 */
export function trivialServerCommand(): string[] {
  return [
    "chrt",
    "--idle",
    "0",
    "nice",
    "-n",
    "19",
    process.execPath,
    "--import",
    "tsx",
    join(REPO, "bench", "serve-trivial.ts"),
  ];
}

/** What the server gets during a run: page clients on the event stream and requests spread over the run. */
export interface Load {
  clients: number;
  requests: number;
  /** The reads carry `If-None-Match` with the last answer's tag, as a browser's or a phone's cache does. */
  conditional?: boolean;
  /** Which program plays the clients (default: BENCH_SERVE_CLIENTS, else the C one). */
  program?: ClientsProgram;
}
/** The goal's load, the reads conditional (since round seven). */
export const FULL: Load = { clients: CLIENTS, requests: 1000, conditional: true };
/** The same without `If-None-Match` (the mix of rounds one to six). */
export const PLAIN: Load = { clients: CLIENTS, requests: 1000 };
/** BENCH_SERVE_MIX=plain: the parts and the A/B with the old mix. */
export const MODES_LOAD = process.env.BENCH_SERVE_MIX === "plain" ? PLAIN : FULL;

/**
 * The clients (bench/serve-load.c, or bench/serve-load.ts: bench/serve-load-program.ts) in a process of their
 * own at nice 19, under SCHED_IDLE too when `idle`: in real use they sit on other machines. `args`: url,
 * token, span in ms, clients, requests.
 */
export function spawnLoadClients(
  idle: boolean,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  program: ClientsProgram = DEFAULT_CLIENTS,
): ChildProcess {
  return spawn(
    idle ? "chrt" : "nice",
    [...(idle ? ["--idle", "0", "nice"] : []), "-n", "19", ...clientsCommand(program).argv, ...args],
    { cwd: REPO, env: benchEnvironment(env), stdio: ["pipe", "pipe", "inherit"] },
  );
}

async function startLoad(url: string, token: string, spanMs: number, load: Load) {
  const program = clientsCommand(load.program ?? DEFAULT_CLIENTS).program;
  const child = spawnLoadClients(
    IDLE_CLIENTS,
    [url, token, String(spanMs), String(load.clients), String(load.requests)],
    load.conditional ? { BENCH_SERVE_CONDITIONAL: "1" } : {},
    program,
  );
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
    program,
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
  /** Reads answered `304 Not Modified`. */
  notModified: number;
}
const NO_CLIENTS: ClientsReport = {
  sent: 0,
  failed: 0,
  read: 0,
  cpuMs: 0,
  answeredInRun: 0,
  latency: { p50Ms: 0, p95Ms: 0, maxMs: 0 },
  notModified: 0,
};

/** The last run alone's wall time: the clients spread their requests over 0.8 of it. */
export const span = { lastBaselineMs: 10_000 };

/** `withServer`: false, no server at all; else the server, with that load (none: the server alone). */
export async function timedRun(
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
        load = await startLoad(server.url, server.token, span.lastBaselineMs * 0.8, withServer);
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
      notModified: clients.notModified ?? 0,
      clientsProgram: load?.program ?? "none",
      runCpuMs: timed.cpuMs,
      runUserMs: timed.userMs,
      runSysMs: timed.sysMs,
      startupCpuMs: server?.startupCpuMs ?? 0,
    };
  } finally {
    load?.child.kill("SIGTERM");
    server?.child.kill("SIGTERM");
    if (server) await new Promise((r) => server?.child.once("exit", r));
    rmSync(root, { recursive: true, force: true });
  }
}
