import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";

/**
 * The folders git's untracked cache (the index's `UNTR` extension) holds valid stat data for, by path from
 * the top ("" for the top, else ending in "/"), each with its ctime in seconds as git last saw it: git's
 * `status` checks each such folder's stat data (seconds: this git compares no nanoseconds) and reads the
 * folder again, storing fresh stat data, whenever it differs. A folder marked check-only (an untracked folder
 * git stopped reading early) and everything under it is left out, as is any folder under one without valid data.
 */
export type UntrackedFolders = Map<string, number>;

/** Folders as git's status last checked them against its untracked cache. */
export interface CheckedFolders {
  /** When that status started (ms since the epoch). */
  started: number;
  /** Folder → its ctime in seconds, as the untracked cache holds it after that status. */
  folders: UntrackedFolders;
}

/**
 * The folders the latest judge's `git status` against the private index checked (`statusStarted`: when it
 * started, judge-status.ts; each judge clears it first, judged-tree-cache.ts); undefined when that judge ran
 * none, or an index.lock says a write of the index did not happen (a status that cannot take the lock keeps
 * its refreshed cache to itself).
 */
export function checkedFolders(
  scope: { git: { dir: string }; statusStarted?: number } | undefined,
  hashBytes: number,
): CheckedFolders | undefined {
  const started = scope?.statusStarted;
  if (!scope || started === undefined || existsSync(join(scope.git.dir, "index.lock"))) return undefined;
  const folders = readUntrackedFolders(join(scope.git.dir, "index"), hashBytes);
  return folders && { started, folders };
}

const HASH = 20;
/** info/exclude's and the excludes file's stat data (36 bytes each), the dir flags, then both hashes. */
const HEADER_FIXED = 36 + 36 + 4 + 2 * HASH;
const STAT_DATA = 36;
/** "EOIE", its size, the offset, the hash of the extensions' headers; then the file's checksum. */
const EOIE_TAIL = 8 + 4 + HASH + HASH;

/**
 * The untracked cache of the sha1 index at `path`, read from its end: the extensions only, found through the
 * end-of-index-entries extension (`index.recordEndOfIndexEntries`, which gantry's private git sets), so a
 * 6 MB index costs a read of its last few hundred KB. Undefined for anything else (no EOIE, no UNTR, a part
 * that does not parse): the caller stats every folder itself then.
 */
export function readUntrackedFolders(path: string, hashBytes = HASH): UntrackedFolders | undefined {
  if (hashBytes !== HASH) return undefined;
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const size = fstatSync(fd).size;
    if (size < 12 + EOIE_TAIL) return undefined;
    const tail = Buffer.alloc(EOIE_TAIL);
    if (readSync(fd, tail, 0, EOIE_TAIL, size - EOIE_TAIL) !== EOIE_TAIL) return undefined;
    if (tail.toString("latin1", 0, 4) !== "EOIE" || tail.readUInt32BE(4) !== 4 + HASH) return undefined;
    const start = tail.readUInt32BE(8);
    const eoieAt = size - EOIE_TAIL;
    if (start < 12 || start > eoieAt) return undefined;
    const extensions = Buffer.alloc(eoieAt - start);
    if (readSync(fd, extensions, 0, extensions.length, start) !== extensions.length) return undefined;
    // EOIE's hash is over each extension's 8-byte header: the offset names the start of the extensions.
    const headers = createHash("sha1");
    let untracked: Buffer | undefined;
    for (let at = 0; at < extensions.length; ) {
      if (at + 8 > extensions.length) return undefined;
      const length = extensions.readUInt32BE(at + 4);
      headers.update(extensions.subarray(at, at + 8));
      if (extensions.toString("latin1", at, at + 4) === "UNTR")
        untracked = extensions.subarray(at + 8, at + 8 + length);
      at += 8 + length;
      if (at > extensions.length) return undefined;
    }
    if (!headers.digest().equals(tail.subarray(12, 12 + HASH)) || !untracked) return undefined;
    return parseUntracked(untracked);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The UNTR extension's body (dir.c read_untracked_extension's format). */
export function parseUntracked(body: Buffer): UntrackedFolders | undefined {
  const walked = walkUntracked(body);
  if (!walked) return undefined;
  const { paths, parents, checkOnly, statAt } = walked;
  const folders: UntrackedFolders = new Map();
  const trusted = new Uint8Array(paths.length);
  for (let i = 0; i < paths.length; i++) {
    const stat = statAt[i] as number;
    if (stat < 0) continue;
    const parent = parents[i] as number;
    if (checkOnly[i] || (parent >= 0 && !trusted[parent])) continue;
    trusted[i] = 1;
    folders.set(paths[i] as string, body.readUInt32BE(stat));
  }
  return folders;
}

/** The folders of an UNTR body (walkUntracked), each by its index in depth-first order. */
export interface UntrackedWalk {
  /** From the top: "" for the top, else ending in "/". */
  paths: string[];
  parents: number[];
  checkOnly: Uint8Array;
  /** Where each folder's 36 bytes of stat data are in the body; -1 for a folder without valid data. */
  statAt: Int32Array;
}

export const UNTRACKED_STAT_BYTES = STAT_DATA;

/** Each folder of an UNTR body, depth first: its path, parent, flags and where its stat data is. */
export function walkUntracked(body: Buffer): UntrackedWalk | undefined {
  try {
    const end = body.length - 1;
    if (end < 1 || body[end] !== 0) return undefined;
    const cursor = { at: 0 };
    const identLength = varint(body, cursor, end);
    cursor.at += identLength + HEADER_FIXED;
    const perDirEnd = body.indexOf(0, cursor.at);
    if (perDirEnd < 0 || perDirEnd >= end) return undefined;
    cursor.at = perDirEnd + 1;
    const count = varint(body, cursor, end);
    if (count === 0 || count > end) return undefined;
    const paths: string[] = [];
    const parents: number[] = [];
    // Depth-first, each folder before its subfolders: untracked count, subfolder count, name, untracked names.
    const readDir = (base: string, parent: number): void => {
      const untrackedCount = varint(body, cursor, end);
      const dirs = varint(body, cursor, end);
      const nul = body.indexOf(0, cursor.at);
      if (nul < 0 || nul >= end) throw new Error("UNTR: a name runs past the end");
      const name = body.toString("utf8", cursor.at, nul);
      cursor.at = nul + 1;
      for (let i = 0; i < untrackedCount; i++) {
        const next = body.indexOf(0, cursor.at);
        if (next < 0 || next >= end) throw new Error("UNTR: a name runs past the end");
        cursor.at = next + 1;
      }
      const path = parent < 0 ? "" : `${base}${name}/`;
      const index = paths.length;
      paths.push(path);
      parents.push(parent);
      if (paths.length > count) throw new Error("UNTR: more folders than counted");
      for (let i = 0; i < dirs; i++) readDir(path, index);
    };
    readDir("", -1);
    if (paths.length !== count) return undefined;
    const valid = ewahBits(body, cursor, end, count);
    const checkOnly = ewahBits(body, cursor, end, count);
    ewahBits(body, cursor, end, count); // which folders' .gitignore hash follows: not used
    if (!valid || !checkOnly) return undefined;
    const statAt = new Int32Array(count).fill(-1);
    let stat = cursor.at;
    for (let i = 0; i < count; i++) {
      if (!valid[i]) continue;
      if (stat + STAT_DATA > end) return undefined;
      statAt[i] = stat;
      stat += STAT_DATA;
    }
    return { paths, parents, checkOnly, statAt };
  } catch {
    return undefined;
  }
}

/** git's offset varint (varint.c); throws past `end`. */
function varint(bytes: Buffer, cursor: { at: number }, end: number): number {
  let byte = bytes[cursor.at++] as number;
  if (cursor.at > end) throw new Error("UNTR: a number runs past the end");
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = bytes[cursor.at++] as number;
    if (cursor.at > end || value > 0xffffff) throw new Error("UNTR: a number runs past the end");
    value = (value + 1) * 128 + (byte & 0x7f);
  }
  return value;
}

/**
 * An EWAH bitmap as ewah_io.c writes it (bit count, word count, the 64-bit words, the last run word's
 * position), read into one byte a bit for the first `count` bits.
 */
function ewahBits(bytes: Buffer, cursor: { at: number }, end: number, count: number): Uint8Array | undefined {
  if (cursor.at + 8 > end) return undefined;
  const words = bytes.readUInt32BE(cursor.at + 4);
  const first = cursor.at + 8;
  cursor.at = first + words * 8 + 4;
  if (cursor.at > end) return undefined;
  const bits = new Uint8Array(count);
  let pos = 0;
  let w = 0;
  while (w < words) {
    const high = bytes.readUInt32BE(first + w * 8);
    const low = bytes.readUInt32BE(first + w * 8 + 4);
    // A run word: bit 0 the run's value, bits 1-32 its length in words, bits 33-63 the literal words after it.
    const run = (low >>> 1) + (high & 1) * 0x80000000;
    const literals = high >>> 1;
    if (low & 1) for (let k = 0; k < run * 64 && pos < count; k++) bits[pos++] = 1;
    else pos += run * 64;
    w += 1;
    for (let l = 0; l < literals && w < words; l++, w++) {
      const lo = bytes.readUInt32BE(first + w * 8 + 4);
      const hi = bytes.readUInt32BE(first + w * 8);
      for (let c = 0; c < 64; c++, pos++)
        if (pos < count && ((c < 32 ? lo >>> c : hi >>> (c - 32)) & 1) === 1) bits[pos] = 1;
    }
  }
  return bits;
}
