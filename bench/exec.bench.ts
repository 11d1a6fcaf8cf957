/**
 * The process runner's cost per command: `true` run through execCommand (its own process group, the output
 * tail, the kill of what the shell left), 50 times one after another, against node's bare spawn of
 * `/bin/sh -c true` in the same run. Wall clock per command, and the CPU gantry's own process spends on it
 * (the child's CPU is not counted). The first command, which loads the runner, is timed apart.
 * Run alone: `node --import tsx bench/exec.bench.ts`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { execCommand } from "../src/process/executor.js";
import { type Row, row } from "./harness.js";

const COMMANDS = 50;

interface Cost {
  wallMs: number;
  cpuMs: number;
}

async function measure(work: () => Promise<void>): Promise<Cost> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

const bareSpawn = (cwd: string) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", "true"], { cwd, stdio: "ignore" });
    child.once("error", reject);
    child.once("close", () => resolve());
  });

async function throughRunner(cwd: string): Promise<void> {
  const result = await execCommand({ command: "true", cwd, timeoutMs: 30_000 });
  if (result.exitCode !== 0) throw new Error(`\`true\` failed: ${result.spawnError ?? result.output}`);
}

export async function runExecBench(): Promise<Row[]> {
  const cwd = mkdtempSync(join(tmpdir(), "gantry-bench-exec-"));
  try {
    const first = await measure(() => throughRunner(cwd));
    await bareSpawn(cwd);
    const bare: Cost[] = [];
    const runner: Cost[] = [];
    for (let i = 0; i < COMMANDS; i++) {
      // Alternate, so a slow spell on the machine does not land on one side only.
      bare.push(await measure(() => bareSpawn(cwd)));
      runner.push(await measure(() => throughRunner(cwd)));
    }
    const bareWall = row(
      "",
      bare.map((c) => c.wallMs),
      0,
      "ms",
    ).median;
    const bareCpu = row(
      "",
      bare.map((c) => c.cpuMs),
      0,
      "ms",
    ).median;
    return [
      row("first command (loads the runner)", [first.wallMs], bareWall, "ms", "baseline: a bare spawn"),
      row(
        `\`true\` through execCommand (${COMMANDS} runs)`,
        runner.map((c) => c.wallMs),
        bareWall,
        "ms",
        "wall clock; baseline: node's spawn of /bin/sh -c true",
      ),
      row(
        "gantry's CPU per command",
        runner.map((c) => c.cpuMs),
        bareCpu,
        "ms",
        "user + system of this process; baseline: the same for a bare spawn",
      ),
    ];
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runExecBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
