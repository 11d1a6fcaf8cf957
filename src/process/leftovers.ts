import { closeSync, openSync, readdirSync, readSync } from "node:fs";
import { procStat } from "./process-group.js";

export const RUN_ID_VARIABLE = "GANTRY_RUN_ID";
/** Set for one agent session's processes only, so the session's leftovers are told from the run's hooks. */
export const SESSION_ID_VARIABLE = "GANTRY_SESSION_ID";

/**
 * Every process gantry starts (agents, tests, hooks) inherits GANTRY_RUN_ID. After a SIGKILL of gantry,
 * or on a forced second Ctrl-C, this finds the processes still carrying the run's id and kills their
 * process groups, so no agent outlives its run and keeps editing the tree. Linux (/proc); elsewhere none.
 */
export function killRunProcesses(runId: string): number {
  return killMarkedProcesses(RUN_ID_VARIABLE, runId);
}

/**
 * Kills the process group of every process (not gantry's own) whose environment has `variable=value`,
 * also those that left their session's group with setsid; returns how many groups or processes it killed.
 */
export function killMarkedProcesses(variable: string, value: string): number {
  const first = Buffer.from(`${variable}=${value}\0`, "latin1");
  const needle = Buffer.concat([Buffer.from([0]), first]);
  const own = procStat("self")?.group;
  const targets = new Set<number>();
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const environ = readWhole(`/proc/${pid}/environ`);
      if (environ.indexOf(needle) < 0 && !environ.subarray(0, first.length).equals(first)) continue;
      const group = procStat(pid)?.group;
      // A negative target is a whole group; never our own group, only that one process then.
      targets.add(group !== undefined && group > 1 && group !== own ? -group : Number(pid));
    } catch {
      // Gone already, or not ours to read.
    }
  }
  for (const target of targets) {
    try {
      process.kill(target, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return targets.size;
}

/** Read into one buffer kept between calls: a scan reads every process's environment, and allocating for each made garbage. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/** The whole file (a /proc file says size 0, so it is read until the end); valid until the next call. */
function readWhole(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, length);
        scratch = bigger;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}
