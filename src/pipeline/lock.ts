import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../config/input-error.js";
import { processAlive } from "../process/process-group.js";

export const LOCK_FILE = ".gantry/lock";

/**
 * One run per repository: `.gantry/lock` holds the running gantry's pid. A lock whose pid is dead is
 * stale and taken over; a live one refuses the second run with a clear message.
 */
export function acquireLock(root: string): () => void {
  const path = join(root, LOCK_FILE);
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) rmSync(path, { force: true });
        } catch {
          // Already gone.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new InputError(
          LOCK_FILE,
          "",
          `another gantry run (pid ${pid}) is working on this repository; wait for it or stop it`,
          "GANTRY_E_LOCKED",
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new InputError(LOCK_FILE, "", "could not take the run lock", "GANTRY_E_LOCKED");
}
