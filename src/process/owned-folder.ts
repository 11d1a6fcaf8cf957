import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

/**
 * A private folder under `parent` named `<prefix>-<pid>-XXXXXX` (mkdtemp), after removing the folders of
 * that prefix whose gantry process is gone: a run killed with SIGKILL (or a crash) leaves its folders
 * behind, and the next run of any repository clears them.
 */
export function ownedFolder(parent: string, prefix: string): string {
  sweepOrphans(parent, prefix);
  return mkdtempSync(join(parent, `${prefix}-${process.pid}-`));
}

const OWNED = /^(.+)-(\d+)-[A-Za-z0-9]{6}$/;

function sweepOrphans(parent: string, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const match = OWNED.exec(name);
    if (!match || match[1] !== prefix) continue;
    const pid = Number(match[2]);
    if (pid === process.pid || processAlive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

/** Whether a process holds `pid` (one of another user's counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
