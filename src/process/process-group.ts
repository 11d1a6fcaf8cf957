import { readdirSync, readFileSync } from "node:fs";

export interface ProcessGroup {
  /** Sends `signal` to every process of the group; a group that is gone already is fine. */
  signal(signal: NodeJS.Signals): void;
  /** True while a live process is left in the group. Zombies do not count: they are dead, just unreaped. */
  alive(): boolean;
}

/** The process group led by `pid` (a child spawned with `detached: true` leads its own). */
export function processGroup(pid: number | undefined): ProcessGroup {
  return {
    signal(signal) {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // The group is already gone.
      }
    },
    alive() {
      if (pid === undefined || !anyMember(pid)) return false;
      // Orphans are reaped by PID 1, which in a container may be slow to do it or never do it at all.
      return liveMemberOnLinux(pid) ?? true;
    },
  };
}

function anyMember(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether /proc lists a non-zombie process in the group; undefined where there is no /proc to ask. */
function liveMemberOnLinux(pgid: number): boolean | undefined {
  if (process.platform !== "linux") return undefined;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // Gone while we looked.
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}
