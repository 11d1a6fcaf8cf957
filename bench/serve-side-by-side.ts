/**
 * The server's own CPU for the serve bench's load, builds compared side by side: every build's `gantry serve`
 * runs at the same time, each watching its own copy of one live run into which the same events of a real
 * 20-story run are appended in the same loop over 8 s, each with its own clients (bench/serve-load.ts,
 * SCHED_IDLE, nice 19). On a machine shared with other work the load changes from one minute to the next,
 * and a build measured after another (bench/serve-replay.ts) takes that change as its own; side by side,
 * every build gets the same minute. Prints each round's CPU per build, then each build's median.
 *
 *   node --import tsx bench/serve-side-by-side.ts <rounds> <clients> <requests> <cli.js | trivial> <cli.js> [...]
 *
 * A build may carry node's flags for the server before its cli.js, in one argument ("--jitless dist/cli.js").
 * `trivial` as a build: bench/serve-trivial.ts (fixed bytes, no checks), the floor of the traffic itself.
 * `warm:<cli.js>`: that build's server first serves a whole replayed run of its own with its own clients (not
 * measured; the others wait meanwhile), then the measured run: a server warmed by use against a fresh one.
 * Each round's line has the server's CPU, context switches and minor page faults over the replay.
 *
 * BENCH_SERVE_CONDITIONAL=1: the clients' reads carry If-None-Match (the headline's mix).
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  appendFileSync,
  cpSync,
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
import { benchEnvironment, expectOk, median, REPO, timeCommand } from "./harness.js";
import { spawnLoadClients, trivialServerCommand } from "./serve-run.js";
import { serveUrl } from "./serve-url.js";

const REPLAY_MS = 8000;
const RUN_ID = "20990101-000000-live";
/** A run replayed first to a `warm:` build's server only, before the measured run exists. */
const WARM_RUN_ID = "20990101-000000-warm";
const [roundsArg = "3", clients = "50", requests = "1000", ...builds] = process.argv.slice(2);
if (builds.length < 2) {
  process.stderr.write(
    "usage: serve-side-by-side.ts <rounds> <clients> <requests> <cli.js> <cli.js> [...]\n",
  );
  process.exit(2);
}

/** CPU (user + system, ms), context switches of every thread and minor page faults of a process so far. */
function counts(pid: number) {
  let switches = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8");
    for (const match of status.matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(match[1]);
  }
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return { cpuMs: (Number(fields[11]) + Number(fields[12])) * 10, switches, faults: Number(fields[7]) };
}

function untilLine(child: ChildProcess, text: string): Promise<string> {
  let out = "";
  child.stdout?.setEncoding("utf8");
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`no "${text}" in 60 s`)), 60_000);
    child.stdout?.on("data", (chunk: string) => {
      out += chunk;
      if (out.includes(text)) {
        clearTimeout(timer);
        done(out);
      }
    });
  });
}

/** One build's server on its own copy of the live run, with its clients connected and waiting for `go`. */
async function startSide(build: string, template: string) {
  const warm = build.startsWith("warm:");
  const cli = warm ? build.slice(5) : build;
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-sides-"));
  cpSync(template, root, { recursive: true });
  const dir = join(root, ".gantry", "runs", RUN_ID);
  const warmDir = join(root, ".gantry", "runs", WARM_RUN_ID);
  if (warm) {
    mkdirSync(warmDir, { recursive: true });
    writeFileSync(join(warmDir, "events.jsonl"), "");
  }
  // `trivial`: bench/serve-trivial.ts, fixed bytes for every request, under SCHED_IDLE at niceness 19 as gantry serve runs.
  const command =
    cli === "trivial"
      ? trivialServerCommand()
      : [
          process.execPath,
          ...cli.trim().split(/\s+/).slice(0, -1),
          resolve(cli.trim().split(/\s+/).at(-1) as string),
          "serve",
          "--dir",
          root,
        ];
  const server = spawn(command[0] as string, command.slice(1), {
    cwd: cli === "trivial" ? REPO : root,
    env: benchEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
  });
  return { build, warm, root, dir, warmDir, server };
}

type Side = Awaited<ReturnType<typeof startSide>>;

function writeState(side: Side, status: string, startedAt: string, dir = side.dir) {
  const state = {
    v: 1,
    runId: dir === side.dir ? RUN_ID : WARM_RUN_ID,
    feature: "f",
    pid: process.pid,
    startedAt,
    updatedAt: startedAt,
    iterations: 0,
    status,
  };
  writeFileSync(join(dir, "state.json"), JSON.stringify(state));
}

/** The clients' load against some servers, while `events` are appended to each one's run in `dirs` over REPLAY_MS. */
async function replay(
  sides: Side[],
  dirOf: (side: Side) => string,
  urls: { url: string; token: string }[],
  events: string[],
  startedAt: string,
) {
  const loads: ChildProcess[] = [];
  try {
    const ready: Promise<string>[] = [];
    const said: Promise<string>[] = [];
    urls.forEach(({ url, token }, i) => {
      const load = spawnLoadClients(
        true,
        [url, token, String(REPLAY_MS * 0.8), clients, requests],
        process.env.BENCH_SERVE_CONDITIONAL === "1" ? { BENCH_SERVE_CONDITIONAL: "1" } : {},
      );
      loads[i] = load;
      ready.push(untilLine(load, "ready\n"));
      said.push(untilLine(load, "}\n"));
    });
    await Promise.all(ready);
    await new Promise((r) => setTimeout(r, 1000));
    const before = sides.map((side) => counts(side.server.pid as number));
    for (const load of loads) load.stdin?.write("go\n");
    const started = Date.now();
    for (let i = 0; i < events.length; i++) {
      for (const side of sides) {
        appendFileSync(join(dirOf(side), "events.jsonl"), `${events[i]}\n`);
        if (i % 20 === 0) writeState(side, "running", startedAt, dirOf(side));
      }
      const wait = started + ((i + 1) * REPLAY_MS) / events.length - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    for (const side of sides) writeState(side, "complete", startedAt, dirOf(side));
    await new Promise((r) => setTimeout(r, 700));
    const after = sides.map((side) => counts(side.server.pid as number));
    for (const load of loads) load.stdin?.end();
    const reports = (await Promise.all(said)).map((text) =>
      JSON.parse(text.trim().split("\n").at(-1) ?? "{}"),
    );
    return sides.map((side, i) => ({
      build: side.build,
      serverCpuMs: (after[i]?.cpuMs ?? 0) - (before[i]?.cpuMs ?? 0),
      serverSwitches: (after[i]?.switches ?? 0) - (before[i]?.switches ?? 0),
      serverFaults: (after[i]?.faults ?? 0) - (before[i]?.faults ?? 0),
      clientsCpuMs: reports[i]?.cpuMs,
      sent: reports[i]?.sent,
      failed: reports[i]?.failed,
      notModified: reports[i]?.notModified,
    }));
  } finally {
    for (const load of loads) load.kill("SIGTERM");
  }
}

async function round(order: string[], template: string, events: string[]) {
  const startedAt = new Date().toISOString();
  const sides: Side[] = [];
  try {
    for (const build of order) sides.push(await startSide(build, template));
    const warm = sides.filter((side) => side.warm);
    for (const side of warm) writeState(side, "running", startedAt, side.warmDir);
    const urls = await Promise.all(sides.map((side) => serveUrl(side.server, 60_000)));
    // `warm:` builds serve a whole replay first (not measured); the others wait meanwhile.
    if (warm.length > 0)
      await replay(
        warm,
        (side) => side.warmDir,
        urls.filter((_, i) => sides[i]?.warm),
        events,
        startedAt,
      );
    for (const side of sides) {
      mkdirSync(side.dir, { recursive: true });
      writeFileSync(join(side.dir, "events.jsonl"), "");
      writeState(side, "running", startedAt);
    }
    // The hub finds the new run at its next poll (500 ms), before the clients ask for the run list.
    await new Promise((r) => setTimeout(r, 1000));
    return await replay(sides, (side) => side.dir, urls, events, startedAt);
  } finally {
    for (const side of sides) {
      side.server.kill("SIGTERM");
      await new Promise((r) => side.server.once("exit", r));
      rmSync(side.root, { recursive: true, force: true });
    }
  }
}

const project = makeFeatureProject(20);
const made = mkdtempSync(join(tmpdir(), "gantry-bench-sides-run-"));
try {
  cpSync(project.template, made, { recursive: true });
  expectOk(
    "the run to replay",
    await timeCommand(
      process.execPath,
      [
        resolve(
          builds
            .find((b) => b !== "trivial")
            ?.replace(/^warm:/, "")
            .trim()
            .split(/\s+/)
            .at(-1) as string,
        ),
        "run",
        "--feature",
        "f",
        "--dir",
        made,
      ],
      {
        cwd: made,
      },
    ),
  );
  const runs = join(made, ".gantry", "runs");
  const events = readFileSync(join(runs, readdirSync(runs)[0] as string, "events.jsonl"), "utf8")
    .trim()
    .split("\n");
  const cpu = new Map<string, number[]>(builds.map((build) => [build, []]));
  for (let r = 0; r < Number(roundsArg); r++) {
    // The start order turns by one each round: no build is always the first to get its clients going.
    const order = builds.map((_, i) => builds[(i + r) % builds.length] as string);
    for (const result of await round(order, project.template, events)) {
      cpu.get(result.build)?.push(result.serverCpuMs);
      process.stdout.write(`${JSON.stringify({ round: r + 1, ...result })}\n`);
    }
  }
  for (const [build, values] of cpu)
    process.stdout.write(`${JSON.stringify({ build, medianServerCpuMs: median(values), values })}\n`);
} finally {
  project.remove();
  rmSync(made, { recursive: true, force: true });
}
