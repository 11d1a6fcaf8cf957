import { createHash } from "node:crypto";
import { HEADER, STAT_BYTES, scanIndex } from "./index-file.js";

/** One stage-0 entry of an index file as its bytes: 40 of stat data, the object id, the flags, the path. */
export interface RawEntry {
  path: Buffer;
  /** git's mode (0o100644, 0o100755, 0o120000, 0o160000). */
  mode: number;
  id: Buffer;
  /** The 40 bytes of stat data, all zero for an entry git has not looked at on disk. */
  stat: Buffer;
}

/**
 * A plain index file (see scanPlainIndex) with where each entry is, and no object made an entry: at 50,000
 * entries, objects and path strings cost more than the merge that uses them.
 */
export interface PlainIndex {
  bytes: Buffer;
  version: number;
  count: number;
  /** Entry i starts at `at[i]`; its name is `bytes[at[i] + NAME, nameEnd[i])`. */
  at: Uint32Array;
  nameEnd: Uint32Array;
}

export { HEADER } from "./index-file.js";
export const STAT = STAT_BYTES;
export const ID = 20;
/** Where an entry's name starts: stat data, object id, 16 bits of flags. */
export const NAME = STAT + ID + 2;
/** Extensions a fresh `read-tree` leaves out or builds again anyway: dropping them keeps the file valid. */
const DROPPABLE = new Set(["TREE", "UNTR", "FSMN", "EOIE", "IEOT"]);

/**
 * A sha1 index file of version 2 or 3 in which nothing but plain stage-0 entries and droppable extensions
 * is found; undefined for anything else (version 4, a conflict, an assume-unchanged, skip-worktree or
 * intent-to-add entry, a split or sparse index, resolve-undo data, a checksum that does not match or is not
 * written): the caller has git do it then.
 */
export function scanPlainIndex(bytes: Buffer): PlainIndex | undefined {
  if (bytes.length < HEADER + ID || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  const end = bytes.length - ID;
  if (version !== 2 && version !== 3) return undefined;
  const digest = createHash("sha1").update(bytes.subarray(0, end)).digest();
  if (!digest.equals(bytes.subarray(end))) return undefined;
  return locatePlainEntries(bytes);
}

/**
 * The entries of an index file whose checksum was checked (or that only gantry's git wrote): plain stage-0
 * entries of version 2 or 3 and droppable extensions only; undefined for anything else.
 */
export function locatePlainEntries(bytes: Buffer): PlainIndex | undefined {
  if (bytes.length < HEADER + ID) return undefined;
  const version = bytes.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const end = bytes.length - ID;
  const count = bytes.readUInt32BE(8);
  // Each entry takes at least 64 bytes: a count the file cannot hold is not allocated for.
  if (count > (end - HEADER) / 64) return undefined;
  const at = new Uint32Array(count);
  const nameEnd = new Uint32Array(count);
  let i = 0;
  let plain = true;
  const whole = scanIndex(
    bytes,
    ID,
    (start, flags, _extended, _name, from, to) => {
      // assume-valid, extended (skip-worktree, intent-to-add) or a conflict's stage; a NUL inside the name.
      if (flags & 0xf000 || bytes.indexOf(0, from) !== to) plain = false;
      at[i] = start;
      nameEnd[i] = to;
      i++;
    },
    (signature) => !DROPPABLE.has(signature),
  );
  return whole && plain ? { bytes, version, count, at, nameEnd } : undefined;
}

/** The entries of a plain index as objects (scanPlainIndex's file); undefined where scanPlainIndex is. */
export function readPlainIndex(bytes: Buffer): { version: number; entries: RawEntry[] } | undefined {
  const plain = scanPlainIndex(bytes);
  if (!plain) return undefined;
  const entries: RawEntry[] = [];
  for (let i = 0; i < plain.count; i++) entries.push(entryAt(plain, i));
  return { version: plain.version, entries };
}

/** Entry i's path, a view into the file's bytes. */
export function nameOf(plain: PlainIndex, i: number): Buffer {
  return plain.bytes.subarray((plain.at[i] as number) + NAME, plain.nameEnd[i]);
}

/** Where a plain index's entries end, its extensions begin: its last entry's end, the header's with none. */
export function entriesEnd(plain: PlainIndex): number {
  const last = plain.count - 1;
  if (last < 0) return HEADER;
  const start = plain.at[last] as number;
  return start + entrySize((plain.nameEnd[last] as number) - start - NAME);
}

/** Entry i of a plain index, its buffers views into the file's bytes. */
export function entryAt(plain: PlainIndex, i: number): RawEntry {
  const start = plain.at[i] as number;
  return {
    path: nameOf(plain, i),
    mode: plain.bytes.readUInt32BE(start + 24),
    id: plain.bytes.subarray(start + STAT, start + STAT + ID),
    stat: plain.bytes.subarray(start, start + STAT),
  };
}

/** How many bytes an entry with a name of `nameLength` bytes takes: padded with 1 to 8 NULs to a multiple of 8. */
export function entrySize(nameLength: number): number {
  return (NAME + nameLength + 8) & ~7;
}
