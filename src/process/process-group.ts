import { readdirSync, readFileSync } from "node:fs";

export interface ProcessGroup {
  /** Sends `signal` to every process of the group; a group that is gone already is fine. */
  signal(signal: NodeJS.Signals): void;
  /**
   * Sends `signal` to every live member but the leader, one by one (Linux; elsewhere to the whole group).
   * For a leader that would die of it and take the rest down at once, like bwrap under its sandbox.
   */
  signalMembers(signal: NodeJS.Signals): void;
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
    signalMembers(signal) {
      if (pid === undefined) return;
      const members = liveMembersOnLinux(pid);
      if (members === undefined) return this.signal(signal);
      for (const member of members) {
        if (member === pid) continue;
        try {
          process.kill(member, signal);
        } catch {
          // Gone meanwhile.
        }
      }
    },
    alive() {
      if (pid === undefined || !anyMember(pid)) return false;
      // Orphans are reaped by PID 1, which in a container may be slow to do it or never do it at all.
      return liveMemberOnLinux(pid) ?? true;
    },
  };
}

/** Whether a process with this id exists (signalling it may still be refused: EPERM). */
export function processAlive(pid: number): boolean {
  return anyMember(-pid);
}

/** Whether any process is in the group (a negative id: that one process). */
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
  const members = liveMembersOnLinux(pgid, true);
  return members === undefined ? undefined : members.length > 0;
}

/** The group's non-zombie processes as /proc lists them (the first only, with `first`); undefined without /proc. */
function liveMembersOnLinux(pgid: number, first = false): number[] | undefined {
  if (process.platform !== "linux") return undefined;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const stat = procStat(entry);
    if (stat?.group === pgid && stat.state !== "Z" && stat.state !== "X") {
      members.push(Number(entry));
      if (first) break;
    }
  }
  return members;
}

/** A process's state letter and process group from /proc (`self` for this one); undefined once it is gone. */
export function procStat(pid: string): { state: string; group: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
  return { state: fields[0] ?? "", group: Number(fields[2]) };
}
