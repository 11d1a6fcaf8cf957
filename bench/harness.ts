/**
 * What every benchmark shares: the row it reports, statistics over repeated runs, timing a command in a
 * child process (wall clock, and CPU and peak memory through /usr/bin/time when it is there), the
 * built CLI, and the machine the numbers come from.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** One figure: a median over repeated runs with min and max, next to its baseline measured in the same run. */
export interface Row {
  name: string;
  median: number;
  min: number;
  max: number;
  unit: string;
  baseline: number;
  /** median / baseline. */
  ratio: number;
  /** What the baseline is, the goal, or anything else the reader needs; printed after the numbers. */
  note?: string;
}

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The built CLI; BENCH_CLI points at another build (to compare two). */
export const CLI = process.env.BENCH_CLI ? resolve(process.env.BENCH_CLI) : join(REPO, "dist", "cli.js");

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A row from the repeated measurements of a figure and the median of its baseline's. */
export function row(
  name: string,
  values: readonly number[],
  baseline: number,
  unit: string,
  note?: string,
): Row {
  const med = median(values);
  return {
    name,
    median: med,
    min: Math.min(...values),
    max: Math.max(...values),
    unit,
    baseline,
    ratio: baseline === 0 ? Number.NaN : med / baseline,
    ...(note ? { note } : {}),
  };
}

export interface Timed {
  wallMs: number;
  /** User + system CPU of the process and every descendant it waited for; undefined without /usr/bin/time. */
  cpuMs?: number;
  /** Peak resident set of the largest process in the tree (the command itself here), in MB. */
  maxRssMb?: number;
  /** cpuMs apart: user and system CPU, with /usr/bin/time. */
  userMs?: number;
  sysMs?: number;
  code: number | null;
  stderr: string;
}

const TIME = "/usr/bin/time";
const HAS_TIME = existsSync(TIME);

/** The environment a measured command gets: ours, without node's test-runner context. */
export function benchEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/**
 * Runs `file args` in `cwd`, stdout discarded, and measures it. With /usr/bin/time the command runs
 * under it (a few hundred microseconds more, the same for a figure and its baseline) and reports CPU and
 * peak RSS; otherwise peak RSS is polled from /proc/<pid>/status (VmHWM).
 */
export function timeCommand(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Timed> {
  const scratch = HAS_TIME ? mkdtempSync(join(tmpdir(), "gantry-bench-time-")) : undefined;
  const out = scratch ? join(scratch, "time") : "";
  const [command, argv] = scratch
    ? [TIME, ["-f", "%e %U %S %M", "-o", out, file, ...args]]
    : [file, [...args]];
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(command, argv, {
      cwd: options.cwd,
      env: options.env ?? benchEnvironment(),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    let hwmKb = 0;
    const poll = scratch
      ? undefined
      : setInterval(() => {
          try {
            const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
            hwmKb = Math.max(hwmKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
          } catch {
            // Gone between two polls.
          }
        }, 20);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 10 * 60_000);
    child.once("error", fail);
    child.once("close", (code) => {
      const wallMs = performance.now() - started;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      let cpuMs: number | undefined;
      let maxRssMb: number | undefined = hwmKb > 0 ? hwmKb / 1024 : undefined;
      let split: { userMs: number; sysMs: number } | undefined;
      if (scratch) {
        const line = readFileSync(out, "utf8").trim().split("\n").at(-1) ?? "";
        const [, user, sys, rss] = line.split(/\s+/).map(Number);
        if (user !== undefined && sys !== undefined && !Number.isNaN(user + sys)) {
          cpuMs = (user + sys) * 1000;
          split = { userMs: Math.round(user * 1000), sysMs: Math.round(sys * 1000) };
        }
        if (rss !== undefined && !Number.isNaN(rss)) maxRssMb = rss / 1024;
        rmSync(scratch, { recursive: true, force: true });
      }
      done({
        wallMs,
        code,
        stderr,
        ...(cpuMs !== undefined ? { cpuMs } : {}),
        ...(maxRssMb !== undefined ? { maxRssMb } : {}),
        ...split,
      });
    });
  });
}

/** Fails with what the command said when it did not exit 0. */
export function expectOk(what: string, timed: Timed): Timed {
  if (timed.code !== 0) throw new Error(`${what} exited with ${timed.code}:\n${timed.stderr.slice(-4000)}`);
  return timed;
}

export interface Machine {
  nproc: number;
  node: string;
  cpu: string;
  /** 1-minute load average when the benchmarks started: other work on the machine shows up in the numbers. */
  load: number;
  time: boolean;
}

export function machine(): Machine {
  let cpu = cpus()[0]?.model ?? "unknown";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpu;
  } catch {
    // Not Linux: os.cpus() said it.
  }
  return {
    nproc: cpus().length,
    node: process.version,
    cpu,
    load: loadavg()[0] ?? 0,
    time: HAS_TIME,
  };
}

/** Fails early, with the fix, when the CLI was not built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing; run \`npm run build\` first`);
}
