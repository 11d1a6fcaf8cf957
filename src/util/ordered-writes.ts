import {
  type BigIntStats,
  closeSync,
  fdatasync,
  fstatSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { type AtomicWriteOptions, syncFolder, tempPathFor } from "./atomic-write.js";

/** One file of a durable step. */
export interface OrderedFile {
  path: string;
  content: string;
  /**
   * False once a newer version of the file was written in full (renamed into place) while this step waited
   * on the disk: this one is then dropped, never put back over the newer.
   */
  current?: () => boolean;
  /** Told the file's stat (taken before the rename) once it is in place. */
  placed?: (stats: BigIntStats) => void;
}

/** A durable step whose files are all in place: `synced` settles once the last one's folder is synced too. */
export interface Placed {
  synced: Promise<void>;
}

let queue: Promise<unknown> = Promise.resolve();

/**
 * Writes files as one durable step: every file's content reaches the disk side by side (fdatasync in the
 * threadpool, one journal commit where the file system batches them), then each is renamed into place in the
 * order given, its folder synced before the next rename, so that a crash never leaves a later file's new
 * version without an earlier one's. Resolves once the last folder is synced. Steps run one at a time.
 * `durable: false` (as writeFileAtomic's): the contents are synced before the renames, the folders are not.
 */
export async function writeInOrder(
  files: readonly OrderedFile[],
  options: AtomicWriteOptions = {},
): Promise<void> {
  await (await placeInOrder(files, options)).synced;
}

/**
 * `writeInOrder`, resolved as soon as every file is in place and every folder but the last synced, for a
 * caller with work to do before it relies on the last file being durable (it awaits `synced` then). The
 * next step starts after `synced`.
 */
export function placeInOrder(
  files: readonly OrderedFile[],
  options: AtomicWriteOptions = {},
): Promise<Placed> {
  const step = queue.then(() => durableStep(files, options.durable !== false));
  queue = step.then((placed) => placed.synced).catch(() => undefined);
  return step;
}

async function durableStep(files: readonly OrderedFile[], durable: boolean): Promise<Placed> {
  const temps: { file: OrderedFile; temp: string; fd?: number; stats?: BigIntStats }[] = [];
  try {
    for (const file of files) {
      const entry: (typeof temps)[number] = { file, temp: tempPathFor(file.path) };
      temps.push(entry);
      entry.fd = openSync(entry.temp, "w", 0o644);
      writeSync(entry.fd, file.content);
    }
    // Data and size only (fdatasync): the temp file is new, so its size and blocks are what a read needs.
    await Promise.all(temps.map(({ fd }) => datasync(fd as number)));
    for (const entry of temps) {
      entry.stats = fstatSync(entry.fd as number, { bigint: true });
      closeSync(entry.fd as number);
      entry.fd = undefined;
    }
  } catch (error) {
    for (const { fd, temp } of temps) {
      if (fd !== undefined) closeSync(fd);
      rmSync(temp, { force: true });
    }
    throw error;
  }
  let synced = Promise.resolve();
  for (const [i, { file, temp, stats }] of temps.entries()) {
    await synced;
    if (file.current?.() === false) rmSync(temp, { force: true });
    else {
      try {
        renameSync(temp, file.path);
      } catch (error) {
        for (const rest of temps.slice(i)) rmSync(rest.temp, { force: true });
        throw error;
      }
      file.placed?.(stats as BigIntStats);
    }
    // Synced even when a newer write superseded this one: that write may not have synced its folder.
    if (durable) synced = syncFolder(dirname(file.path));
  }
  return { synced };
}

function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
}
