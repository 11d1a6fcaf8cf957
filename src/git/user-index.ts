import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
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

/** One stage-0 entry of an index file as its bytes: 40 of stat data, the object id, the flags, the path. */
export interface RawEntry {
  path: Buffer;
  /** git's mode (0o100644, 0o100755, 0o120000, 0o160000). */
  mode: number;
  id: Buffer;
  /** The 40 bytes of stat data, all zero for an entry git has not looked at on disk. */
  stat: Buffer;
}

const HEADER = 12;
const STAT = 40;
const ID = 20;
/** Extensions a fresh `read-tree` leaves out or builds again anyway: dropping them keeps the file valid. */
const DROPPABLE = new Set(["TREE", "UNTR", "FSMN", "EOIE", "IEOT"]);

/**
 * The entries of a sha1 index file of version 2 or 3 in which nothing but plain stage-0 entries and
 * droppable extensions is found; undefined for anything else (version 4, a conflict, an assume-unchanged,
 * skip-worktree or intent-to-add entry, a split or sparse index, resolve-undo data, a checksum that does
 * not match or is not written): the caller has git do it then.
 */
export function readPlainIndex(bytes: Buffer): { version: number; entries: RawEntry[] } | undefined {
  if (bytes.length < HEADER + ID || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  const end = bytes.length - ID;
  if (version !== 2 && version !== 3) return undefined;
  const digest = createHash("sha1").update(bytes.subarray(0, end)).digest();
  if (!digest.equals(bytes.subarray(end))) return undefined;
  const entries: RawEntry[] = [];
  let at = HEADER;
  for (let i = bytes.readUInt32BE(8); i > 0; i--) {
    const start = at;
    if (start + STAT + ID + 2 > end) return undefined;
    const flags = bytes.readUInt16BE(start + STAT + ID);
    // assume-valid, extended (skip-worktree, intent-to-add) or a conflict's stage.
    if (flags & 0xf000) return undefined;
    const nameAt = start + STAT + ID + 2;
    const nul = bytes.indexOf(0, nameAt);
    if (nul < 0 || nul >= end) return undefined;
    entries.push({
      path: bytes.subarray(nameAt, nul),
      mode: bytes.readUInt32BE(start + 24),
      id: bytes.subarray(start + STAT, start + STAT + ID),
      stat: bytes.subarray(start, start + STAT),
    });
    at = start + ((nul - start + 8) & ~7);
  }
  while (at + 8 <= end) {
    if (!DROPPABLE.has(bytes.toString("latin1", at, at + 4))) return undefined;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return at === end ? { version, entries } : undefined;
}

/** An index file of `entries` (sorted by path), no extensions, its checksum at the end. */
export function serializeIndex(version: number, entries: readonly RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  const header = Buffer.alloc(HEADER);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(entries.length, 8);
  parts.push(header);
  for (const entry of entries) {
    const size = (STAT + ID + 2 + entry.path.length + 8) & ~7;
    const out = Buffer.alloc(size);
    entry.stat.copy(out, 0);
    out.writeUInt32BE(entry.mode, 24);
    entry.id.copy(out, STAT);
    out.writeUInt16BE(Math.min(entry.path.length, 0xfff), STAT + ID);
    entry.path.copy(out, STAT + ID + 2);
    parts.push(out);
  }
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/**
 * What `git read-tree -m -i <commit>` leaves in the user's index, for a commit whose entries are `entries`
 * (sorted, stat data empty): an entry with the same path, mode and object as before keeps its stat data
 * (so `git status` does not read the file again, and `read-tree -m -u` finds it up to date); every other
 * entry has none, and git compares its content the next time it looks. A racy entry (its mtime not older
 * than the old index file: written in the same second git recorded it) is kept as git keeps it, when its
 * file still has that stat data and the bytes of its blob; undefined when one does not (git writes the
 * index then: it would mark that entry, after converting the content as the user's config says).
 */
export function carryStatData(
  top: string,
  entries: readonly RawEntry[],
  old: readonly RawEntry[],
  oldIndexMtimeSec: number,
): RawEntry[] | undefined {
  const byPath = new Map<string, RawEntry>();
  for (const entry of old) byPath.set(entry.path.toString("latin1"), entry);
  const made: RawEntry[] = [];
  for (const entry of entries) {
    const was = byPath.get(entry.path.toString("latin1"));
    if (!was || was.mode !== entry.mode || !was.id.equals(entry.id)) made.push(entry);
    else if (was.stat.readUInt32BE(8) < oldIndexMtimeSec || stillClean(top, was))
      made.push({ ...entry, stat: was.stat });
    else return undefined;
  }
  return made;
}

/** The racy entry's file has the stat data recorded and its blob's bytes (or a stat git finds changed anyway). */
function stillClean(top: string, entry: RawEntry): boolean {
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
 * Resets the user's index to a commit's `entries` as git's lock protocol does: `index.lock` created
 * exclusively (a git working on the index at the same time makes this fail, as it would make git fail),
 * the old index read under the lock, the new one written there and renamed over it. False, with nothing
 * changed, when the old index is one this does not rewrite; throws when the lock is held.
 */
export function resetUserIndex(indexPath: string, top: string, entries: readonly RawEntry[]): boolean {
  const lock = `${indexPath}.lock`;
  const fd = openSync(lock, "wx", 0o666);
  let done = false;
  try {
    const stat = statSync(indexPath);
    const old = readPlainIndex(readFileSync(indexPath));
    const carried = old && carryStatData(top, entries, old.entries, Math.floor(stat.mtimeMs / 1000));
    if (!old || !carried) return false;
    const bytes = serializeIndex(old.version, carried);
    writeSync(fd, bytes);
    closeSync(fd);
    chmodSync(lock, stat.mode & 0o777);
    renameSync(lock, indexPath);
    done = true;
    return true;
  } finally {
    if (!done) {
      try {
        closeSync(fd);
      } catch {
        // closed already
      }
      rmSync(lock, { force: true });
    }
  }
}
