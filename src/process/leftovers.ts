import { readdirSync, readFileSync } from "node:fs";

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
  const needle = `\0${variable}=${value}\0`;
  const own = processGroupOf("self");
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
      if (!`\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`.includes(needle)) continue;
      const group = processGroupOf(pid);
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

function processGroupOf(pid: string): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // After the command name in parentheses: state, ppid, pgrp, ...
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}
