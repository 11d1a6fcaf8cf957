/**
 * `gantry serve` watching a live run: the same feature run with no server, and with a server that has 50
 * page clients on its event stream and answers 1,000 token-checked requests spread over the run. The
 * figure is the run's wall time; the baseline the same run with no server (goal: ratio ≤ 1.10). The
 * server's resident memory is sampled before the run and after it (flat: ratio near 1).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeFeatureProject } from "./feature-project.js";
import { benchEnvironment, CLI, expectOk, median, type Row, row, timeCommand } from "./harness.js";

const STORIES = Number(process.env.BENCH_SERVE_STORIES ?? 20);
const PAIRS = Number(process.env.BENCH_SERVE_PAIRS ?? 3);
const CLIENTS = 50;
const REQUESTS = 1000;

/** User + system CPU of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

async function startServe(root: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--dir", root], {
    cwd: root,
    env: benchEnvironment(),
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  const found = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("gantry serve printed no URL in 30 s")), 30_000);
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /(http:\/\/\S+\/)#token=(\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
  });
  return { child, url: found[1] as string, token: found[2] as string };
}

/** 50 clients reading the event stream until aborted; returns how many bytes they read in all. */
function openClients(url: string, token: string, signal: AbortSignal): Promise<number>[] {
  return Array.from({ length: CLIENTS }, async () => {
    let bytes = 0;
    try {
      const response = await fetch(`${url}api/events`, {
        headers: { authorization: `Bearer ${token}` },
        signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.length;
      }
    } catch {}
    return bytes;
  });
}

/** 1,000 requests, two at a time, spaced to last about `spanMs`: lists, views, and refused ones. */
async function fireRequests(url: string, token: string, spanMs: number): Promise<number> {
  const auth = { authorization: `Bearer ${token}` };
  let runId: string | undefined;
  let sent = 0;
  const gap = spanMs / REQUESTS;
  const worker = async () => {
    while (sent < REQUESTS) {
      const n = sent++;
      const started = Date.now();
      const kind = n % 4;
      const response =
        kind === 0
          ? await fetch(`${url}api/runs`, { headers: auth })
          : kind === 1 && runId
            ? await fetch(`${url}api/runs/${runId}`, { headers: auth })
            : kind === 2
              ? await fetch(`${url}api/runs`, { headers: { authorization: "Bearer wrong" } })
              : await fetch(`${url}api/runs/${runId ?? "x"}/answer`, {
                  method: "POST",
                  headers: { ...auth, "content-type": "application/json" },
                  body: JSON.stringify({
                    requestId: "00000000-0000-0000-0000-000000000000",
                    action: "approve",
                  }),
                });
      const text = await response.text();
      if (kind === 0 && !runId) runId = (JSON.parse(text) as { runId: string }[])[0]?.runId;
      await new Promise((r) => setTimeout(r, Math.max(0, 2 * gap - (Date.now() - started))));
    }
  };
  await Promise.all([worker(), worker()]);
  return sent;
}

async function timedRun(template: string, withServer: boolean) {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-serve-"));
  cpSync(template, root, { recursive: true });
  const stop = new AbortController();
  let server: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    let requests: Promise<number> | undefined;
    let clients: Promise<number>[] = [];
    let rssBefore = 0;
    if (withServer) {
      server = await startServe(root);
      clients = openClients(server.url, server.token, stop.signal);
      await new Promise((r) => setTimeout(r, 500));
      rssBefore = rssMb(server.child.pid as number);
    }
    const run = timeCommand(process.execPath, [CLI, "run", "--feature", "f", "--dir", root], {
      cwd: root,
      env: benchEnvironment(),
    });
    if (server) requests = fireRequests(server.url, server.token, lastBaselineMs * 0.8);
    const timed = expectOk(`gantry run on ${STORIES} stories${withServer ? " with serve" : ""}`, await run);
    const sent = (await requests) ?? 0;
    const rssAfter = server ? rssMb(server.child.pid as number) : 0;
    const serverCpuMs = server ? cpuMs(server.child.pid as number) : 0;
    stop.abort();
    const read = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
    return { wallMs: timed.wallMs, rssBefore, rssAfter, sent, read, serverCpuMs, runCpuMs: timed.cpuMs };
  } finally {
    server?.child.kill("SIGTERM");
    rmSync(root, { recursive: true, force: true });
  }
}

let lastBaselineMs = 10_000;

export async function runServeBench(): Promise<Row[]> {
  const project = makeFeatureProject(STORIES);
  try {
    const plain: number[] = [];
    const served: number[] = [];
    const growth: number[] = [];
    const serverCpu: number[] = [];
    const runCpu: number[] = [];
    let rss = 0;
    let sent = 0;
    for (let i = 0; i < PAIRS; i++) {
      const base = await timedRun(project.template, false);
      plain.push(base.wallMs);
      lastBaselineMs = base.wallMs;
      const with50 = await timedRun(project.template, true);
      served.push(with50.wallMs);
      growth.push(with50.rssAfter / with50.rssBefore);
      serverCpu.push(with50.serverCpuMs);
      if (with50.runCpuMs !== undefined) runCpu.push(with50.runCpuMs);
      rss = with50.rssAfter;
      sent = with50.sent;
      if (with50.read === 0) throw new Error("the SSE clients read nothing");
    }
    return [
      row(
        `run of ${STORIES} stories, serve with ${CLIENTS} SSE clients + ${sent} requests`,
        served,
        median(plain),
        "ms",
        "baseline: the same run, no server; goal ratio ≤ 1.10",
      ),
      row(
        "serve's own CPU over the run (incl. start-up)",
        serverCpu,
        runCpu.length ? median(runCpu) : Number.NaN,
        "ms",
        "baseline: the run's own CPU (gantry and its children)",
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
