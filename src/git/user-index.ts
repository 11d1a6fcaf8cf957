import {
  type BigIntStats,
  chmodSync,
  closeSync,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { objectId } from "./git-objects.js";
import { versionKey } from "./index-file.js";
import { type CommitIndex, type MergedIndex, mergeUserIndex } from "./index-merge.js";
import { NAME, type PlainIndex, type RawEntry, scanPlainIndex } from "./plain-index.js";

/** The user's index as written in node, with which versions of the file were replaced and written. */
export interface UserIndexReset extends MergedIndex {
  /** versionKey of the index file the merge read (under the lock) and of the one it wrote. */
  oldKey: string;
  /** Undefined when the file written may hold another process's bytes too: it is read again then. */
  key?: string;
}

/** The index a merge wrote, as scanPlainIndex reads it. */
function plainOf(written: MergedIndex): PlainIndex {
  const at = new Uint32Array(written.count);
  const nameEnd = new Uint32Array(written.count);
  for (let i = 0; i < written.count; i++) {
    at[i] = (written.names[2 * i] as number) - NAME;
    nameEnd[i] = written.names[2 * i + 1] as number;
  }
  return { bytes: written.bytes, version: written.bytes.readUInt32BE(4), count: written.count, at, nameEnd };
}

/** The racy entry's file has the stat data recorded and its blob's bytes (or a stat git finds changed anyway). */
export function stillClean(top: string, entry: RawEntry): boolean {
  const path = join(top, entry.path.toString("utf8"));
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return true; // gone: git sees it deleted, whatever the stat data says
  const recorded = entry.stat;
  const sameStat =
    Math.floor(stat.mtimeMs / 1000) === recorded.readUInt32BE(8) &&
    stat.size % 2 ** 32 === recorded.readUInt32BE(36) &&
    stat.ino % 2 ** 32 === recorded.readUInt32BE(20);
  if (!sameStat) return true; // git compares the content of an entry whose stat data differs
  if (!stat.isFile() && !stat.isSymbolicLink()) return false;
  const content = stat.isSymbolicLink() ? Buffer.from(readlinkSync(path)) : readFileSync(path);
  return objectId("blob", content) === entry.id.toString("hex");
}

/** A merge made before the commit, without the lock, from the version of the index file named `oldKey`. */
export interface PreparedUserIndex {
  merged: MergedIndex;
  oldKey: string;
}

/**
 * The merge resetUserIndex would make, made ahead (while completion's status runs) from the index file as it
 * is, no lock taken and nothing written: resetUserIndex writes it only if the file under its lock is still
 * that version (inode, size, mtime and ctime to the nanosecond; git replaces the file on every write, and ctime
 * cannot be set back). Undefined when the merge would need a racy entry's file read (that answer is taken
 * under the lock, as before) or cannot be made in node.
 */
export function prepareUserIndex(
  indexPath: string,
  commit: CommitIndex,
  written?: UserIndexReset,
  allocate?: (size: number) => Buffer,
): PreparedUserIndex | undefined {
  try {
    const { oldStat, old } = readOld(indexPath, written);
    const oldMtimeSec = Number(oldStat.mtimeNs / 1_000_000_000n);
    // A racy entry ends the merge here (false): whether its file still holds its blob is asked under the lock.
    const merged = old && mergeUserIndex(commit, old, oldMtimeSec, () => false, allocate);
    return merged ? { merged, oldKey: versionKey(oldStat) } : undefined;
  } catch {
    return undefined;
  }
}

/** The index file's version and its entries (the file gantry wrote last: its bytes are known). */
function readOld(indexPath: string, written?: UserIndexReset): { oldStat: BigIntStats; old?: PlainIndex } {
  const oldFd = openSync(indexPath, "r");
  try {
    const oldStat = fstatSync(oldFd, { bigint: true });
    const old = written?.key === versionKey(oldStat) ? plainOf(written) : scanPlainIndex(readFileSync(oldFd));
    return { oldStat, old };
  } finally {
    closeSync(oldFd);
  }
}

/**
 * Resets the user's index to a commit's entries as git's lock protocol does: `index.lock` created
 * exclusively (a git working on the index at the same time makes this fail, as it would make git fail),
 * the old index read under the lock, the new one written there and renamed over it. Undefined, with
 * nothing changed, when the old index is one this does not rewrite (mergeUserIndex); throws when the lock
 * is held. `prepared`: a merge made ahead (prepareUserIndex), written as it is when the file under the lock
 * is still the version it was made from.
 */
export function resetUserIndex(
  indexPath: string,
  top: string,
  commit: CommitIndex,
  written?: UserIndexReset,
  allocate?: (size: number) => Buffer,
  prepared?: PreparedUserIndex,
): UserIndexReset | undefined {
  const lock = `${indexPath}.lock`;
  const fd = openSync(lock, "wx", 0o666);
  let done = false;
  try {
    let oldStat = statSync(indexPath, { bigint: true });
    let merged = prepared?.oldKey === versionKey(oldStat) ? prepared.merged : undefined;
    if (!merged) {
      const read = readOld(indexPath, written);
      oldStat = read.oldStat;
      const oldMtimeSec = Number(oldStat.mtimeNs / 1_000_000_000n);
      merged =
        read.old &&
        mergeUserIndex(commit, read.old, oldMtimeSec, (entry) => stillClean(top, entry), allocate);
    }
    if (!merged) return undefined;
    for (let at = 0; at < merged.bytes.length; ) at += writeSync(fd, merged.bytes, at);
    chmodSync(lock, Number(oldStat.mode) & 0o777);
    const wrote = fstatSync(fd, { bigint: true });
    renameSync(lock, indexPath);
    done = true;
    // The descriptor names the file written; its key after the rename (which moves ctime) is the version at
    // the index's path now, unless another process wrote into the lock file since (mtime or size moved).
    const now = fstatSync(fd, { bigint: true });
    const same = now.ino === wrote.ino && now.size === wrote.size && now.mtimeNs === wrote.mtimeNs;
    return { ...merged, oldKey: versionKey(oldStat), ...(same ? { key: versionKey(now) } : {}) };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    if (!done) rmSync(lock, { force: true });
  }
}
