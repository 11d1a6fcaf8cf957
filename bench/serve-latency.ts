/**
 * What the server's CPU priority costs the page: the time from a request to its answer when `gantry serve`
 * runs at each `--nice` given, on a quiet machine and on one whose cores are all kept busy by processes at
 * normal priority (two per core, in this session: what a run's test runners are to the server). The server
 * watches a live run asking a question (test/serve/fake-run.ts); one client at normal priority asks for the
 * run's view and sends an answer naming an option the question did not offer (parsed, checked against the
 * schema and the question, refused with 422, nothing written: the path of a real answer), one request every
 * 100 ms. Prints one JSON line per setting and machine state: the answers' latency, median, 95th percentile
 * and most, in ms. Each round runs every setting in an order that turns by one.
 *
 *   node --import tsx bench/serve-latency.ts [rounds] [cli.js] [settings, e.g. idle,19,10,0,idle/session]
 *
 * A setting `<nice>/session` starts the server in a session of its own (`setsid`, as a server started from
 * another terminal is): with autogroups (`/proc/sys/kernel/sched_autogroup_enabled`) the scheduler shares
 * the CPU between sessions first, and a policy or niceness counts only within a session.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { fakeRun, RUN_ID } from "../test/serve/fake-run.js";
import { median, REPO } from "./harness.js";
import { serveUrl } from "./serve-url.js";

const [roundsArg = "2", cliArg = `${REPO}/dist/cli.js`, settingsArg = "idle,19,10,0"] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const CLI = resolve(cliArg);
const SETTINGS = settingsArg.split(",");
const REQUESTS = 40;
const GAP_MS = 100;
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  process.stderr.write("usage: serve-latency.ts [rounds] [cli.js] [settings, e.g. idle,19,10,0]\n");
  process.exit(2);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Processes that keep a core busy until killed (or 60 s, whichever is first). */
function hogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ["-e", "const end = Date.now() + 60000; while (Date.now() < end);"], {
      stdio: "ignore",
    }),
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

function call(
  agent: Agent,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> {
  return new Promise((done, fail) => {
    const req = request(url, { agent, method, headers, timeout: 30_000 }, (res) => {
      res.resume();
      res.once("end", () => done(res.statusCode ?? 0));
    });
    req.once("timeout", () => req.destroy(new Error("no answer in 30 s")));
    req.once("error", fail);
    req.end(body);
  });
}

async function measure(setting: string, busy: boolean): Promise<number[]> {
  const run = fakeRun();
  // `<nice>/session`: the server in a session of its own (as when started from another terminal), which
  // Linux's autogroups schedule as a group of its own beside the busy processes' group.
  const [nice = "idle", session] = setting.split("/");
  const server = spawn(process.execPath, [CLI, "serve", "--dir", run.root, "--nice", nice], {
    stdio: ["ignore", "pipe", "ignore"],
    detached: session === "session",
  });
  let load: ChildProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { url: base, token } = await serveUrl(server);
    const auth = { authorization: `Bearer ${token}` };
    const view = new URL(`api/runs/${RUN_ID}`, base);
    const answer = new URL(`api/runs/${RUN_ID}/answer`, base);
    const refused = JSON.stringify({ requestId: run.requestId, action: "not-offered" });
    await call(agent, view, "GET", auth); // connected and warm before the cores get busy
    await sleep(1000);
    if (busy) load = hogs(2 * availableParallelism());
    await sleep(300);
    const latencies: number[] = [];
    let failed = 0;
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      try {
        const status =
          i % 2 === 0
            ? await call(agent, view, "GET", auth)
            : await call(agent, answer, "POST", { ...auth, "content-type": "application/json" }, refused);
        if (status !== (i % 2 === 0 ? 200 : 422)) throw new Error(`unexpected status ${status}`);
      } catch (error) {
        // A request the server dropped or answered wrongly counts as failed, with the time it took.
        failed += 1;
        process.stderr.write(`--nice ${setting}: ${error instanceof Error ? error.message : error}\n`);
      }
      latencies.push(performance.now() - started);
      await sleep(GAP_MS);
    }
    const key = `${setting}|${busy ? "busy" : "quiet"}`;
    failures.set(key, (failures.get(key) ?? 0) + failed);
    process.stderr.write(
      `--nice ${setting} ${busy ? "busy" : "quiet"}: median ${median(latencies).toFixed(1)} ms, most ${Math.max(...latencies).toFixed(0)} ms, ${failed} failed\n`,
    );
    return latencies;
  } finally {
    agent.destroy();
    await Promise.all([...load, server].map(stop));
    run.append({ type: "run:end" });
  }
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))] ?? NaN;

const results = new Map<string, number[]>();
const failures = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (let j = 0; j < SETTINGS.length; j++) {
    const setting = SETTINGS[(j + round) % SETTINGS.length] as string;
    for (const busy of [false, true]) {
      const key = `${setting}|${busy ? "busy" : "quiet"}`;
      results.set(key, [...(results.get(key) ?? []), ...(await measure(setting, busy))]);
    }
  }
}
for (const [key, values] of results) {
  const [setting, machine] = key.split("|");
  const ms = (n: number) => Math.round(n * 10) / 10;
  process.stdout.write(
    `${JSON.stringify({ nice: setting, machine, requests: values.length, failed: failures.get(key) ?? 0, medianMs: ms(median(values)), p95Ms: ms(percentile(values, 0.95)), maxMs: ms(Math.max(...values)) })}\n`,
  );
}
