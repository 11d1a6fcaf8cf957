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

/**
 * Resets the user's index to a commit's entries as git's lock protocol does: `index.lock` created
 * exclusively (a git working on the index at the same time makes this fail, as it would make git fail),
 * the old index read under the lock, the new one written there and renamed over it. Undefined, with
 * nothing changed, when the old index is one this does not rewrite (mergeUserIndex); throws when the lock
 * is held.
 */
export function resetUserIndex(
  indexPath: string,
  top: string,
  commit: CommitIndex,
  written?: UserIndexReset,
  allocate?: (size: number) => Buffer,
): UserIndexReset | undefined {
  const lock = `${indexPath}.lock`;
  const fd = openSync(lock, "wx", 0o666);
  let done = false;
  try {
    const oldFd = openSync(indexPath, "r");
    let oldStat: BigIntStats;
    let old: PlainIndex | undefined;
    try {
      oldStat = fstatSync(oldFd, { bigint: true });
      // The file gantry wrote last, still that version (its key taken under the lock): its bytes are known.
      old = written?.key === versionKey(oldStat) ? plainOf(written) : scanPlainIndex(readFileSync(oldFd));
    } finally {
      closeSync(oldFd);
    }
    const oldMtimeSec = Number(oldStat.mtimeNs / 1_000_000_000n);
    const merged =
      old && mergeUserIndex(commit, old, oldMtimeSec, (entry) => stillClean(top, entry), allocate);
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
