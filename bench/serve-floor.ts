/**
 * What about the serve bench's 1,000 requests slows the run: the same 20-story run, interleaved in every
 * round (the order turning by one), alone and with the requests (no streams) sent to
 *
 * - `serve`: `gantry serve` of the build given, the bench's mix, evenly paced (as the headline row);
 * - `trivial`: bench/serve-trivial.ts, a server answering fixed bytes and checking nothing (the traffic's floor);
 * - `burst`: `gantry serve`, the same requests 50 at a time back to back, the bursts spread over the span;
 * - `conditional`: `gantry serve`, the reads with `If-None-Match` (answered `304` when nothing changed);
 * - `idle`: `gantry serve`, the clients under SCHED_IDLE as well as at niceness 19;
 * - `clients`: the clients pacing their requests against a closed port (every request refused at once).
 *
 * Each run is counted by `perf stat` where perf is installed (the run's whole process tree: CPU, context
 * switches, migrations); the server's CPU and context switches (every thread) from /proc. On a shared
 * machine the counts mean more than the wall times.
 *
 *   node --import tsx bench/serve-floor.ts [rounds] [case ...]      (cases: default all of the above)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment, CLI, median, REPO } from "./harness.js";
import { spawnLoadClients, trivialServerCommand } from "./serve-run.js";
import { serveUrl } from "./serve-url.js";

const CASES = ["serve", "trivial", "burst", "conditional", "idle", "clients"] as const;
type Case = "alone" | (typeof CASES)[number];
const [roundsArg = "3", ...named] = process.argv.slice(2);
const chosen = (named.length ? named : CASES) as Case[];
const HAS_PERF = spawnSync("perf", ["--version"]).status === 0;

/** CPU (ms) and context switches of every thread of a process so far. */
function processCounts(pid: number) {
  let voluntary = 0;
  let involuntary = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    voluntary += Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    involuntary += Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  }
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, switches: voluntary + involuntary };
}

interface Measured {
  wallMs: number;
  runCpuMs: number;
  runSwitches: number;
  runMigrations: number;
  runVoluntary: number;
  runInvoluntary: number;
  serverCpuMs: number;
  serverSwitches: number;
  clientsCpuMs: number;
}

function startServer(kind: Case, root: string): ChildProcess | undefined {
  if (kind === "alone" || kind === "clients") return undefined;
  const command =
    kind === "trivial" ? trivialServerCommand() : [process.execPath, CLI, "serve", "--dir", root];
  return spawn(command[0] as string, command.slice(1), {
    cwd: kind === "trivial" ? REPO : root,
    env: benchEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
  });
}

async function timedRun(template: string, kind: Case, spanMs: number): Promise<Measured> {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-floor-"));
  cpSync(template, root, { recursive: true });
  const server = startServer(kind, root);
  let clients: ChildProcess | undefined;
  try {
    const { url, token } = server ? await serveUrl(server) : { url: "http://127.0.0.1:9/", token: "none" };
    const serverPid = server?.pid;
    if (kind !== "alone") {
      const extra: NodeJS.ProcessEnv =
        kind === "burst"
          ? { BENCH_SERVE_BURST: "50" }
          : kind === "conditional"
            ? { BENCH_SERVE_CONDITIONAL: "1" }
            : {};
      clients = spawnLoadClients(kind === "idle", [url, token, String(spanMs), "0", "1000"], extra);
      await lineOf(clients, "ready\n");
      await new Promise((r) => setTimeout(r, 300));
    }
    const before = serverPid ? processCounts(serverPid) : { cpuMs: 0, switches: 0 };
    const perfOut = join(root, "..", `${root.split("/").at(-1)}.perf`);
    const run = [process.execPath, CLI, "run", "--feature", "f", "--dir", root];
    // /usr/bin/time: the tree's voluntary and involuntary context switches (preempted: involuntary).
    const timeOut = `${perfOut}.time`;
    const perfArgs = ["stat", "-x,", "-o", perfOut, "-e", "task-clock,context-switches,cpu-migrations", "--"];
    const argv = [
      "/usr/bin/time",
      "-f",
      "%w %c",
      "-o",
      timeOut,
      ...(HAS_PERF ? ["perf", ...perfArgs] : []),
      ...run,
    ];
    const started = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: root,
      env: benchEnvironment(),
      stdio: "ignore",
    });
    clients?.stdin?.write("go\n");
    const code = await new Promise((r) => child.once("exit", r));
    const wallMs = performance.now() - started;
    if (code !== 0) throw new Error(`gantry run exited with ${code}`);
    const after = serverPid ? processCounts(serverPid) : { cpuMs: 0, switches: 0 };
    let clientsCpuMs = 0;
    if (clients) {
      const line = lineOf(clients, "}\n");
      clients.stdin?.end();
      clientsCpuMs = (JSON.parse((await line).trim().split("\n").at(-1) as string) as { cpuMs: number })
        .cpuMs;
    }
    const perf = HAS_PERF ? readFileSync(perfOut, "utf8") : "";
    const [voluntary = Number.NaN, involuntary = Number.NaN] =
      readFileSync(timeOut, "utf8").trim().split("\n").at(-1)?.split(" ").map(Number) ?? [];
    rmSync(perfOut, { force: true });
    rmSync(timeOut, { force: true });
    const counter = (name: string) =>
      Number(new RegExp(`^([\\d.]+),[^,]*,${name}`, "m").exec(perf)?.[1] ?? Number.NaN);
    return {
      wallMs,
      runCpuMs: counter("task-clock"),
      runSwitches: counter("context-switches"),
      runMigrations: counter("cpu-migrations"),
      runVoluntary: voluntary,
      runInvoluntary: involuntary,
      serverCpuMs: after.cpuMs - before.cpuMs,
      serverSwitches: after.switches - before.switches,
      clientsCpuMs,
    };
  } finally {
    clients?.kill("SIGTERM");
    server?.kill("SIGTERM");
    rmSync(root, { recursive: true, force: true });
  }
}

/** Everything a child printed, once it has printed `text`. */
function lineOf(child: ChildProcess, text: string): Promise<string> {
  let out = "";
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ${JSON.stringify(text)} in 180 s: ${out}`)), 180_000);
    child.stdout?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes(text)) {
        clearTimeout(timer);
        done(out);
      }
    });
  });
}

const project = makeFeatureProject(20);
try {
  const cases: Case[] = ["alone", ...chosen];
  const all = new Map<Case, (Measured & { ratio: number })[]>(cases.map((k) => [k, []]));
  let span = 8000;
  for (let round = 0; round < Number(roundsArg); round++) {
    const measured = new Map<Case, Measured>();
    for (let j = 0; j < cases.length; j++) {
      const kind = cases[(j + round) % cases.length] as Case;
      measured.set(kind, await timedRun(project.template, kind, span));
      if (kind === "alone") span = (measured.get(kind) as Measured).wallMs * 0.8;
    }
    const alone = measured.get("alone") as Measured;
    for (const [kind, m] of measured) all.get(kind)?.push({ ...m, ratio: m.wallMs / alone.wallMs });
    process.stderr.write(
      `round ${round + 1}: ${[...measured].map(([k, m]) => `${k} ${m.wallMs.toFixed(0)} ms (run CPU ${m.runCpuMs.toFixed(0)}, cs ${m.runSwitches} (vol ${m.runVoluntary}, invol ${m.runInvoluntary}), mig ${m.runMigrations}; server ${m.serverCpuMs} ms, cs ${m.serverSwitches}; clients ${m.clientsCpuMs} ms)`).join("; ")}\n`,
    );
  }
  const med = (kind: Case, pick: (m: Measured & { ratio: number }) => number) =>
    median((all.get(kind) ?? []).map(pick));
  process.stdout.write(
    "case          ratio  wall ms  run CPU ms  run cs  invol  run migr  server CPU  server cs  clients CPU\n",
  );
  for (const kind of cases)
    process.stdout.write(
      `${kind.padEnd(12)} ${med(kind, (m) => m.ratio)
        .toFixed(2)
        .padStart(6)} ${med(kind, (m) => m.wallMs)
        .toFixed(0)
        .padStart(8)} ${med(kind, (m) => m.runCpuMs)
        .toFixed(0)
        .padStart(
          11,
        )} ${String(med(kind, (m) => m.runSwitches)).padStart(7)} ${String(med(kind, (m) => m.runInvoluntary)).padStart(6)} ${String(med(kind, (m) => m.runMigrations)).padStart(9)} ${String(med(kind, (m) => m.serverCpuMs)).padStart(11)} ${String(med(kind, (m) => m.serverSwitches)).padStart(10)} ${String(med(kind, (m) => m.clientsCpuMs)).padStart(12)}\n`,
    );
} finally {
  project.remove();
}
