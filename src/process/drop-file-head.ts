import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** util-linux's fallocate from the system's own folders, never the PATH (an agent can put anything there). */
const FALLOCATE = ["/usr/bin/fallocate", "/bin/fallocate"].find((path) => existsSync(path));
const TIMEOUT_MS = 5000;

/**
 * Frees the disk blocks of a file's first `length` bytes while a writer keeps appending to it: a hole is
 * punched there (the file keeps its size, the range reads as zeros), so nothing written past `length`, even
 * while this runs, is touched. False where that cannot be done (no fallocate, a file system without holes):
 * the caller then empties the file and loses what was written between its read and the emptying.
 */
export function dropFileHead(path: string, length: number): boolean {
  if (FALLOCATE === undefined || length <= 0) return false;
  try {
    execFileSync(FALLOCATE, ["--punch-hole", "--offset", "0", "--length", String(length), path], {
      stdio: "ignore",
      timeout: TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    return true;
  } catch {
    return false;
  }
}
