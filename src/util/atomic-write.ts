import {
  type BigIntStats,
  close,
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsync,
  fsyncSync,
  open,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

/**
 * `durable: false`: the content still reaches the disk before the rename (never a torn or empty file), but the
 * rename itself is not waited for (no fsync of the folder): a crash of the machine may leave the previous version.
 */
export interface AtomicWriteOptions {
  durable?: boolean;
}

/**
 * Writes a whole file so that a crash at any moment leaves either the old content or the new: temp file, fsync, rename.
 * Returns the written file's stat, taken before the rename (which changes only its ctime). A write that is not
 * durable is for what the next durable write supersedes and a previous version does not make unsafe.
 */
export function writeFileAtomic(
  path: string,
  content: string,
  options: AtomicWriteOptions = {},
): BigIntStats {
  const durable = options.durable !== false;
  const temp = tempPathFor(path);
  const fd = openSync(temp, "w", 0o644);
  let stats: BigIntStats;
  try {
    writeSync(fd, content);
    // Data and size (the file is new: what a read after a crash needs); its times and mode need no sync.
    fdatasyncSync(fd);
    stats = fstatSync(fd, { bigint: true });
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
  if (durable) fsyncDir(dirname(path));
  return stats;
}

let temps = 0;

/** A temp file beside `path`, unique in this process (removeLeftoverTemps knows the name by its pid). */
export function tempPathFor(path: string): string {
  temps += 1;
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}${temps}.tmp`);
}

/** `fsyncDir` in the threadpool. */
export function syncFolder(dir: string): Promise<void> {
  return new Promise((resolve) =>
    open(dir, "r", (openError, fd) => {
      if (openError) return resolve();
      // As fsyncDir: a file system that refuses fsync on a folder still renames atomically.
      fsync(fd, () => close(fd, () => resolve()));
    }),
  );
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic there.
  }
}

/** A JSON file's text as gantry writes it: two-space indent, a final newline. */
export const jsonText = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export function writeJsonAtomic(path: string, value: unknown, options: AtomicWriteOptions = {}): BigIntStats {
  return writeFileAtomic(path, jsonText(value), options);
}

/**
 * Removes the temp files `writeFileAtomic` left beside `path` when the process that wrote them was killed
 * mid-write (`alive` says its pid is gone); a live writer's temp file is left alone.
 */
export function removeLeftoverTemps(path: string, alive: (pid: number) => boolean): void {
  const dir = dirname(path);
  const pattern = new RegExp(`^\\.${escapeRegExp(basename(path))}\\.(\\d+)\\.\\d+\\.tmp$`);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = pattern.exec(name)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    rmSync(join(dir, name), { force: true });
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
