/**
 * `gantry serve` watching a live run: the same feature run with no server, and with a server that has 50
 * page clients on its event stream and answers 1,000 token-checked requests spread over the run (the
 * reads with If-None-Match, as a browser's or phone's cache sends it). The clients are bench/serve-load.c;
 * the same load from node's clients (bench/serve-load.ts, the bench's clients until round ten) runs in the
 * same rounds, rows of its own. The figure is the run's wall time; the baseline the same run with no server
 * (goal: ratio ≤ 1.10). The server's resident memory is sampled before the run and after it (flat: ratio
 * near 1). Other modes: bench/serve-modes.ts; one run: bench/serve-run.ts.
 */
import { makeFeatureProject } from "./feature-project.js";
import { median, type Row, row } from "./harness.js";
import { CLI_B, runServeAB, runServeParts } from "./serve-modes.js";
import { CLIENTS, CLIENTS_POLICY, FULL, type Load, PAIRS, STORIES, span, timedRun } from "./serve-run.js";

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
    const notModified: number[] = [];
    let rss = 0;
    let sent = 0;
    let failed = 0;
    const clientsCpu: number[] = [];
    const inNode: number[] = [];
    const inNodeRatio: number[] = [];
    const inNodeServerCpu: number[] = [];
    const inNodeClientsCpu: number[] = [];
    let program = "";
    for (let i = 0; i < PAIRS; i++) {
      // Interleaved, the order turning by one each round: a machine getting busier or quieter during the
      // bench weighs on every side alike. The same load from node's clients runs in the same rounds.
      const sides = [false, { ...FULL, program: "c" }, { ...FULL, program: "node" }] as const;
      const runs: Awaited<ReturnType<typeof timedRun>>[] = [];
      for (let j = 0; j < sides.length; j++) {
        const k = (j + i) % sides.length;
        runs[k] = await timedRun(project.template, sides[k] as false | Load);
        if (k === 0) span.lastBaselineMs = (runs[k] as { wallMs: number }).wallMs;
      }
      const [after, with50, node] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];
      plain.push(after.wallMs);
      if (after.runCpuMs !== undefined) runCpuAlone.push(after.runCpuMs);
      process.stderr.write(
        `serve bench round ${i + 1}/${PAIRS}: ${after.wallMs.toFixed(0)} ms alone (run's user/system CPU ${after.runUserMs}/${after.runSysMs} ms), ${with50.wallMs.toFixed(0)} ms served (${with50.runUserMs}/${with50.runSysMs} ms), server CPU ${with50.serverCpuMs} ms, clients' CPU ${with50.clientsCpuMs} ms (${with50.clientsProgram}, ${CLIENTS_POLICY}), RSS ${with50.rssBefore.toFixed(0)}→${with50.rssAfter.toFixed(0)} MB, read ${with50.read} B, ${with50.answeredInRun} answered during the run, latency p50/p95/max ${with50.latency.p50Ms}/${with50.latency.p95Ms}/${with50.latency.maxMs} ms, ${with50.notModified} reads answered 304; node's clients ${node.wallMs.toFixed(0)} ms served, server CPU ${node.serverCpuMs} ms, clients' CPU ${node.clientsCpuMs} ms\n`,
      );
      inNode.push(node.wallMs);
      inNodeRatio.push(node.wallMs / after.wallMs);
      inNodeServerCpu.push(node.serverCpuMs);
      inNodeClientsCpu.push(node.clientsCpuMs);
      clientsCpu.push(with50.clientsCpuMs);
      program = with50.clientsProgram;
      served.push(with50.wallMs);
      answeredInRun.push(with50.answeredInRun);
      latencyP95.push(with50.latency.p95Ms);
      notModified.push(with50.notModified);
      startup.push(with50.startupCpuMs);
      growth.push(with50.rssAfter / with50.rssBefore);
      serverCpu.push(with50.serverCpuMs);
      if (with50.runCpuMs !== undefined) runCpu.push(with50.runCpuMs);
      rss = with50.rssAfter;
      sent = with50.sent;
      failed += with50.failed + node.failed;
      if (with50.read === 0 || node.read === 0) throw new Error("the SSE clients read nothing");
    }
    return [
      row(
        `run of ${STORIES} stories, serve with ${CLIENTS} SSE clients + ${sent} requests`,
        served,
        median(plain),
        "ms",
        `baseline: the same run, no server; goal ratio ≤ 1.10; the reads with If-None-Match; clients in their own process (${program === "c" ? "bench/serve-load.c" : "bench/serve-load.ts"}) at ${CLIENTS_POLICY}${failed ? `; ${failed} requests failed` : ""}`,
      ),
      row(
        "the same, each pair's ratio (with serve / without)",
        served.map((ms, i) => ms / (plain[i] as number)),
        1,
        "x",
        "min and median of the pairs; the noise of a shared machine shows in max",
      ),
      row("the clients' own CPU over the run", clientsCpu, Number.NaN, "ms", "the bench's, not the server's"),
      row(
        "the same load from node's clients (bench/serve-load.ts, rounds one to ten)",
        inNode,
        median(plain),
        "ms",
        "baseline: the same run, no server, same rounds",
      ),
      row("  node's clients, each round's ratio", inNodeRatio, 1, "x"),
      row("  node's clients, serve's own CPU over the run", inNodeServerCpu, Number.NaN, "ms"),
      row("  node's clients, their own CPU over the run", inNodeClientsCpu, Number.NaN, "ms"),
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
        "reads answered 304 (the client's copy current)",
        notModified,
        sent / 2,
        "n",
        "baseline: the reads (a quarter run lists, a quarter run views)",
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
