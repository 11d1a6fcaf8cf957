/**
 * `gantry serve` watching a live run: the same feature run alone and with a server that has 50 page clients
 * on its event stream and answers 1,000 token-checked requests spread over the run (bench/serve-clients.ts,
 * node's own client, at nice 19 in a process of their own). The figure is the served run's wall time, the
 * baseline the run alone; the ratio says how much serving a live page slows the run. No goal.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment, CLI, expectOk, median, REPO, type Row, row, timeCommand } from "./harness.js";
import { serveUrl } from "./serve-url.js";

const STORIES = Number(process.env.BENCH_SERVE_STORIES ?? 20);
const PAIRS = Number(process.env.BENCH_SERVE_PAIRS ?? 3);
const CLIENTS = 50;
const REQUESTS = 1000;

interface Clients {
  child: ChildProcess;
  go(): void;
  finish(): Promise<{ sent: number; failed: number; read: number }>;
}

/** The clients' process, once every stream is open. */
async function startClients(url: string, token: string, spanMs: number): Promise<Clients> {
  const script = join(REPO, "bench", "serve-clients.ts");
  const args = [url, token, String(Math.round(spanMs)), String(CLIENTS), String(REQUESTS)];
  const child = spawn("nice", ["-n", "19", process.execPath, "--import", "tsx", script, ...args], {
    cwd: REPO,
    env: benchEnvironment(),
    stdio: ["pipe", "pipe", "inherit"],
  });
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
      if (!out.includes("ready\n")) return;
      clearTimeout(timer);
      child.stdout?.off("data", check);
      resolve();
    };
    child.stdout?.on("data", check);
    child.once("exit", () => reject(new Error(`the serve bench's clients exited: ${out.slice(-500)}`)));
  });
  return {
    child,
    go: () => child.stdin?.write("go\n"),
    finish: () =>
      new Promise((resolve, reject) => {
        child.once("exit", () => {
          try {
            resolve(JSON.parse(out.trim().split("\n").at(-1) ?? ""));
          } catch {
            reject(new Error(`the serve bench's clients said: ${out.slice(-500)}`));
          }
        });
        child.stdin?.end();
      }),
  };
}

/** One run of the feature in a copy of `template`, with no server or with `gantry serve` and its clients. */
async function timedRun(template: string, served: boolean, spanMs: number) {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-serve-"));
  cpSync(template, root, { recursive: true });
  let server: ChildProcess | undefined;
  let clients: Clients | undefined;
  try {
    if (served) {
      server = spawn(process.execPath, [CLI, "serve", "--dir", root], {
        cwd: root,
        env: benchEnvironment(),
        stdio: ["ignore", "pipe", "ignore"],
      });
      const { url, token } = await serveUrl(server);
      clients = await startClients(url, token, spanMs * 0.8);
    }
    const run = timeCommand(process.execPath, [CLI, "run", "--feature", "f", "--dir", root], {
      cwd: root,
      env: benchEnvironment(),
    });
    clients?.go();
    const timed = expectOk(`gantry run on ${STORIES} stories${served ? " with serve" : ""}`, await run);
    const load = (await clients?.finish()) ?? { sent: 0, failed: 0, read: 0 };
    return { wallMs: timed.wallMs, ...load };
  } finally {
    clients?.child.kill("SIGTERM");
    server?.kill("SIGTERM");
    if (server) await new Promise((r) => server?.once("exit", r));
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runServeBench(): Promise<Row[]> {
  const project = makeFeatureProject(STORIES);
  try {
    const alone: number[] = [];
    const served: number[] = [];
    let failed = 0;
    for (let i = 0; i < PAIRS; i++) {
      // Interleaved, the order turning each pair: a machine getting busier weighs on both sides alike.
      // The first pair starts alone: its time paces the clients' requests over the served run.
      const servedFirst = i % 2 === 1;
      const a = await timedRun(project.template, servedFirst, median(alone.length ? alone : [10_000]));
      const b = await timedRun(project.template, !servedFirst, median(alone.length ? alone : [a.wallMs]));
      const [plain, withServe] = servedFirst ? [b, a] : [a, b];
      if (withServe.read === 0) throw new Error("the event-stream clients read nothing");
      alone.push(plain.wallMs);
      served.push(withServe.wallMs);
      failed += withServe.failed;
      process.stderr.write(
        `serve bench pair ${i + 1}/${PAIRS}: ${plain.wallMs.toFixed(0)} ms alone, ${withServe.wallMs.toFixed(0)} ms served\n`,
      );
    }
    return [
      row(
        `run of ${STORIES} stories, serve with ${CLIENTS} SSE clients + ${REQUESTS} requests`,
        served,
        median(alone),
        "ms",
        `baseline: the same run, no server; node's own clients at nice 19${failed ? `; ${failed} requests failed` : ""}`,
      ),
      row(
        "the same, each pair's ratio (served / alone)",
        served.map((ms, i) => ms / (alone[i] as number)),
        1,
        "x",
      ),
    ];
  } finally {
    project.remove();
  }
}
