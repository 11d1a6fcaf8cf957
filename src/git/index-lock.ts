import { setTimeout as sleep } from "node:timers/promises";
import { GitError, IndexLocked } from "./git-error.js";

/** How long a write of the user's index waits for another git's `index.lock` before the run pauses. */
const WAIT_MS = Number(process.env.GANTRY_INDEX_LOCK_WAIT_MS) || 10_000;

/**
 * Runs a git command that writes the user's index, again while another git holds its lock (an editor's
 * `git status`), within a bound; past it, IndexLocked. git takes and releases the lock itself.
 */
export async function whileIndexLocked<T>(work: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const started = Date.now();
  for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof GitError) || !/index\.lock.*: File exists/s.test(error.stderr)) throw error;
      if (Date.now() - started >= waitMs)
        throw new IndexLocked(
          `the user's git index is locked (index.lock held by another git process for over ${Math.round(waitMs / 1000)} s); nothing was committed`,
          { cause: error, stderr: error.stderr },
        );
      await sleep(delay);
    }
  }
}
