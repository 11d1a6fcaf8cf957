import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";

/**
 * Replaces an index file as git does: the new bytes written to `<index>.lock`, created exclusively (a git
 * holding the lock makes this throw, as it would make git fail), then renamed over the index. Nothing is
 * changed when it throws.
 */
export function writeIndexFile(indexPath: string, bytes: Buffer): void {
  const lock = `${indexPath}.lock`;
  const fd = openSync(lock, "wx", 0o666);
  let renamed = false;
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    closeSync(fd);
    renameSync(lock, indexPath);
    renamed = true;
  } finally {
    if (!renamed) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      rmSync(lock, { force: true });
    }
  }
}
