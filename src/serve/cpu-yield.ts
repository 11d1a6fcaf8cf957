import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { findOnPath } from "../process/find-executable.js";

/** `--nice`'s value: `idle` (SCHED_IDLE at niceness 19, the default) or a niceness 0-19 under the normal policy. */
export type CpuYield = "idle" | number;

/**
 * Where `chrt` is looked for: the system's own directories, never the PATH, which may hold a project's
 * `node_modules/.bin` (written by the agent's work) when gantry is started through npm.
 */
export const CHRT_DIRS = "/usr/bin:/bin";

/** Niceness under SCHED_IDLE: where SCHED_IDLE cannot be had, the server is at least as low as a niceness goes. */
const IDLE_NICE = 19;

/** Parses `--nice`; undefined when it is neither `idle` nor a niceness 0-19. */
export function parseCpuYield(text: string | undefined): CpuYield | undefined {
  if (text === undefined || text === "idle") return "idle";
  const nice = Number(text);
  return /^\d+$/.test(text) && nice <= 19 ? nice : undefined;
}

/**
 * Lowers this process's claim on the CPU, never raising it (that needs privileges). Under SCHED_IDLE a task
 * gets a core a normal task of its session wants only at a weight of 3 against 1,024, never preempts one on
 * waking, and is preempted by each one that wakes; node cannot ask for it itself, so util-linux `chrt` sets it for every thread of this process (`-a`:
 * V8's and libuv's threads too; threads made later inherit it). Returns a line to print when SCHED_IDLE
 * could not be had (no chrt, a kernel or sandbox that refuses it); the niceness is set either way.
 */
export function yieldCpu(setting: CpuYield): string | undefined {
  const nice = setting === "idle" ? IDLE_NICE : setting;
  // On Linux a niceness is a thread's: V8's and libuv's threads already running are set one by one (threads
  // made later inherit their maker's); elsewhere the process's.
  const threads = process.platform === "linux" ? readdirSync("/proc/self/task").map(Number) : [0];
  for (const thread of threads) {
    try {
      if (nice > getPriority(thread)) setPriority(thread, nice);
    } catch {
      // a thread that ended since the listing
    }
  }
  if (setting !== "idle" || process.platform !== "linux") return undefined;
  const program = findOnPath("chrt", CHRT_DIRS);
  if (!program)
    return `gantry serve: SCHED_IDLE not set (no chrt in ${CHRT_DIRS}); running at niceness ${nice} instead`;
  const chrt = spawnSync(program, ["--idle", "-a", "-p", "0", String(process.pid)], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 5000,
    encoding: "utf8",
  });
  if (chrt.status === 0) return undefined;
  const why =
    chrt.error?.message ?? (chrt.stderr.trim().split("\n")[0] || `exit ${chrt.status ?? chrt.signal}`);
  return `gantry serve: SCHED_IDLE not set (chrt: ${why}); running at niceness ${nice} instead`;
}

/** The scheduling policy in a /proc/<pid>/task/<tid>/stat line (5 is SCHED_IDLE, 0 the normal one). */
export function schedulingPolicy(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 41 of proc(5), counted from field 3 (state), the first after the command's name.
  const policy = fields[41 - 3];
  return policy === undefined ? undefined : Number(policy);
}
