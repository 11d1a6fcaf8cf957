/**
 * The server's own cost for the serve bench's load, without the run competing for the CPU: one real run of
 * 20 stories is made once, then its events.jsonl is replayed over 8 s (about a quiet machine's run) into a
 * live run (state.json names this process) that `gantry serve` of each build given watches while the
 * clients of bench/serve-load.ts (SCHED_IDLE, nice 19) read its streams and send their requests. Prints
 * one JSON line per build: the server's CPU, its main thread's context switches and the clients' CPU over
 * the replay. On a busy shared machine these counts move far less than a run's wall time. With
 * BENCH_SERVE_PROF=<dir> each server writes a CPU profile there (node --cpu-prof).
 *
 *   node --import tsx bench/serve-replay.ts <clients> <requests> <cli.js> [<cli.js> ...]
 *
 * A build may carry node's flags for the server before its cli.js, in one argument: "--single-threaded dist/cli.js".
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment, expectOk, timeCommand } from "./harness.js";
import { spawnLoadClients } from "./serve-run.js";
import { serveUrl } from "./serve-url.js";

const REPLAY_MS = 8000;
const [clients = "50", requests = "1000", ...builds] = process.argv.slice(2);
if (builds.length === 0) {
  process.stderr.write("usage: serve-replay.ts <clients> <requests> <cli.js> [<cli.js> ...]\n");
  process.exit(2);
}

/** CPU (user + system, and user alone, ms) and the main thread's context switches of a process so far. */
function counts(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const n = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  return {
    cpuMs: (Number(fields[11]) + Number(fields[12])) * 10,
    userMs: Number(fields[11]) * 10,
    voluntary: n("voluntary_ctxt_switches"),
    involuntary: n("nonvoluntary_ctxt_switches"),
  };
}

function lineFrom(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let out = "";
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no ${pattern} in 60 s`)), 60_000);
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        done(match);
      }
    });
  });
}

/** A build as given: `cli.js`, or node's flags and then the cli in one word ("--single-threaded dist/cli.js"). */
function parseBuild(build: string): { flags: string[]; cli: string } {
  const words = build.trim().split(/\s+/);
  return { flags: words.slice(0, -1), cli: resolve(words.at(-1) as string) };
}

async function replay(build: string, template: string, events: string[]) {
  const { flags, cli } = parseBuild(build);
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-replay-"));
  cpSync(template, root, { recursive: true });
  const runId = "20990101-000000-live";
  const dir = join(root, ".gantry", "runs", runId);
  mkdirSync(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const state = (status: string) =>
    writeFileSync(
      join(dir, "state.json"),
      JSON.stringify({
        v: 1,
        runId,
        feature: "f",
        pid: process.pid,
        startedAt,
        updatedAt: startedAt,
        iterations: 0,
        status,
      }),
    );
  state("running");
  writeFileSync(join(dir, "events.jsonl"), "");
  // BENCH_SERVE_PROF=<dir>: the server writes a CPU profile there when it stops (node --cpu-prof).
  const profile = process.env.BENCH_SERVE_PROF
    ? ["--cpu-prof", `--cpu-prof-dir=${resolve(process.env.BENCH_SERVE_PROF)}`]
    : [];
  const server = spawn(process.execPath, [...flags, ...profile, cli, "serve", "--dir", root], {
    cwd: root,
    env: benchEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
  });
  try {
    const { url, token } = await serveUrl(server, 60_000);
    const clientsProcess = spawnLoadClients(true, [
      url as string,
      token as string,
      String(REPLAY_MS * 0.8),
      clients,
      requests,
    ]);
    let said = "";
    clientsProcess.stdout?.setEncoding("utf8");
    clientsProcess.stdout?.on("data", (chunk: string) => {
      said += chunk;
    });
    await lineFrom(clientsProcess, /ready\n/);
    await new Promise((r) => setTimeout(r, 1000));
    const before = counts(server.pid as number);
    clientsProcess.stdin?.write("go\n");
    const started = Date.now();
    for (let i = 0; i < events.length; i++) {
      appendFileSync(join(dir, "events.jsonl"), `${events[i]}\n`);
      if (i % 20 === 0) state("running");
      const wait = started + ((i + 1) * REPLAY_MS) / events.length - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    state("complete");
    await new Promise((r) => setTimeout(r, 700));
    const after = counts(server.pid as number);
    const exited = new Promise((r) => clientsProcess.once("exit", r));
    clientsProcess.stdin?.end();
    await exited;
    const result = JSON.parse(said.trim().split("\n").at(-1) ?? "{}");
    return {
      build,
      clients: Number(clients),
      requests: Number(requests),
      serverCpuMs: after.cpuMs - before.cpuMs,
      serverUserMs: after.userMs - before.userMs,
      serverVoluntarySwitches: after.voluntary - before.voluntary,
      serverInvoluntarySwitches: after.involuntary - before.involuntary,
      clientsCpuMs: result.cpuMs,
      sent: result.sent,
      failed: result.failed,
      readBytes: result.read,
    };
  } finally {
    server.kill("SIGTERM");
    await new Promise((r) => server.once("exit", r));
    rmSync(root, { recursive: true, force: true });
  }
}

const project = makeFeatureProject(20);
const made = mkdtempSync(join(tmpdir(), "gantry-bench-replay-run-"));
try {
  cpSync(project.template, made, { recursive: true });
  // BENCH_SERVE_REPLAY_EVENTS=<file>: the run's events are kept there and replayed again by the next
  // invocation (no new run; comparing builds on a busy machine, where one run takes minutes).
  const kept = process.env.BENCH_SERVE_REPLAY_EVENTS;
  let text = kept && existsSync(kept) ? readFileSync(kept, "utf8") : undefined;
  if (text === undefined) {
    const first = parseBuild(builds[0] as string).cli;
    expectOk(
      "the run to replay",
      await timeCommand(process.execPath, [first, "run", "--feature", "f", "--dir", made], { cwd: made }),
    );
    const runs = join(made, ".gantry", "runs");
    const runDir = readdirSync(runs)[0] as string;
    text = readFileSync(join(runs, runDir, "events.jsonl"), "utf8");
    if (kept) writeFileSync(kept, text);
  }
  const events = text.trim().split("\n");
  for (const cli of builds) {
    process.stdout.write(`${JSON.stringify(await replay(cli, project.template, events))}\n`);
  }
} finally {
  project.remove();
  rmSync(made, { recursive: true, force: true });
}
