import { createHash } from "node:crypto";
import {
  entriesEnd,
  entryAt,
  entrySize,
  HEADER,
  ID,
  NAME,
  type PlainIndex,
  type RawEntry,
  STAT,
} from "./plain-index.js";

/** A commit's entries as two lists sorted by path: the private index's (the judged tree) and `.gantry/`'s. */
export interface CommitIndex {
  judged: PlainIndex;
  gantry: readonly RawEntry[];
}

/** The user's index as the merge wrote it, and which paths it added and removed (decoded, from the top). */
export interface MergedIndex {
  bytes: Buffer;
  /** [from, to) of each name in `bytes`, two numbers an entry, in order. */
  names: Uint32Array;
  count: number;
  added: string[];
  removed: string[];
}

/** 32-bit words of stat data an entry has (ctime, mtime, dev, ino, mode, uid, gid, size). */
const STAT_WORDS = STAT / 4;

/**
 * What `git read-tree -m -i <commit>` leaves in the user's index (`old`), as one walk of three sorted
 * lists: the commit's entries, where an entry with the same path, mode and object as before keeps its stat
 * data (so `git status` does not read the file again) and every other has none (git compares its content
 * the next time it looks). A racy entry (its mtime not older than the old index file: written in the same
 * second git recorded it) is kept as git keeps it when `stillClean` says its file still has that stat data
 * and its blob's bytes; undefined when one does not (git writes the index then: it would mark that entry,
 * after converting the content as the user's config says), and when the commit's entries are not in git's
 * order or a path is in both lists. At 50,000 entries no object is made an entry: the private index's
 * entries are copied in runs and the stat data word by word.
 */
export function mergeUserIndex(
  commit: CommitIndex,
  old: PlainIndex,
  oldMtimeSec: number,
  stillClean: (entry: RawEntry) => boolean,
  allocate: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): MergedIndex | undefined {
  const { judged, gantry } = commit;
  const count = judged.count + gantry.length;
  let size = entriesEnd(judged) + ID;
  for (const entry of gantry) size += entrySize(entry.path.length);
  // `size` long, 4-byte aligned, its old bytes left as they were (user-index-book.ts lends one kept for the
  // run): every byte is written below (the header, each entry whole with its padding, the checksum).
  const out = allocate(size);
  out.write("DIRC", 0, "latin1");
  out.writeUInt32BE(old.version, 4);
  out.writeUInt32BE(count, 8);
  const words = wordsOf(out);
  const oldWords = wordsOf(old.bytes);
  const src = judged.bytes;
  const prior = old.bytes;
  const names = new Uint32Array(2 * count);
  const added: string[] = [];
  const removed: string[] = [];
  let pos = HEADER;
  let i = 0;
  let k = 0;
  let j = 0;
  // The private index's entries are copied in runs: from `run` (in it) to `runAt` (in out), up to a
  // .gantry/ entry or the end.
  const end = entriesEnd(judged);
  let run = judged.count > 0 ? (judged.at[0] as number) : end;
  let runAt = HEADER;
  for (let n = 0; n < count; n++) {
    const next = gantry[k];
    const from = pos + NAME;
    let length: number;
    if (
      next === undefined ||
      (i < judged.count &&
        order(src, nameFrom(judged, i), judged.nameEnd[i] as number, next.path, 0, next.path.length) < 0)
    ) {
      length = (judged.nameEnd[i] as number) - nameFrom(judged, i);
      i++;
    } else {
      src.copy(out, runAt, run, run + pos - runAt);
      length = next.path.length;
      out.writeUInt32BE(next.mode, pos + 24);
      next.id.copy(out, pos + STAT);
      out.writeUInt16BE(Math.min(length, 0xfff), pos + STAT + ID);
      next.path.copy(out, from);
      out.fill(0, from + length, pos + entrySize(length));
      k++;
      run = i < judged.count ? (judged.at[i] as number) : end;
      runAt = pos + entrySize(length);
    }
    names[2 * n] = from;
    names[2 * n + 1] = from + length;
    pos += entrySize(length);
  }
  src.copy(out, runAt, run, end);
  let previous = -1;
  for (let n = 0; n < count; n++) {
    const from = names[2 * n] as number;
    const to = names[2 * n + 1] as number;
    const entry = from - NAME;
    // git's order: each name after the one before (equal names: a path in both lists).
    if (
      previous >= 0 &&
      order(out, names[previous] as number, names[previous + 1] as number, out, from, to) >= 0
    )
      return undefined;
    previous = 2 * n;
    const mode = out.readUInt32BE(entry + 24);
    let found = 1;
    while (j < old.count) {
      found = order(out, from, to, prior, nameFrom(old, j), old.nameEnd[j] as number);
      if (found <= 0) break;
      removed.push(prior.toString("utf8", nameFrom(old, j), old.nameEnd[j]));
      j++;
    }
    const was = found === 0 ? (old.at[j] as number) : -1;
    const same =
      was >= 0 &&
      prior.readUInt32BE(was + 24) === mode &&
      order(out, entry + STAT, entry + STAT + ID, prior, was + STAT, was + STAT + ID) === 0;
    if (same && prior.readUInt32BE(was + 8) >= oldMtimeSec && !stillClean(entryAt(old, j))) return undefined;
    // No stat data unless the old index had this path with the same mode and object.
    copyStat(out, words, entry, prior, oldWords, was, same);
    out.writeUInt32BE(mode, entry + 24);
    if (found === 0) j++;
    else added.push(out.toString("utf8", from, to));
  }
  for (; j < old.count; j++) removed.push(prior.toString("utf8", nameFrom(old, j), old.nameEnd[j]));
  createHash("sha1")
    .update(out.subarray(0, size - ID))
    .digest()
    .copy(out, size - ID);
  return { bytes: out, names, count, added, removed };
}

/** -1, 0 or 1 as a[aFrom, aTo) sorts before, with or after b[bFrom, bTo), byte by byte (git's order). */
function order(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): number {
  const length = Math.min(aTo - aFrom, bTo - bFrom);
  for (let x = 0; x < length; x++) {
    const d = (a[aFrom + x] as number) - (b[bFrom + x] as number);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  const d = aTo - aFrom - (bTo - bFrom);
  return d === 0 ? 0 : d < 0 ? -1 : 1;
}

/** The buffer's 32-bit words, when it is aligned for them (a file read whole is); else undefined. */
function wordsOf(bytes: Buffer): Int32Array | undefined {
  return bytes.byteOffset % 4 === 0
    ? new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >> 2)
    : undefined;
}

/** The entry's 40 bytes of stat data: the old entry's at `was` (byte order kept) when `same`, else zeros. */
function copyStat(
  out: Buffer,
  words: Int32Array | undefined,
  entry: number,
  prior: Buffer,
  oldWords: Int32Array | undefined,
  was: number,
  same: boolean,
): void {
  const aligned =
    words !== undefined && entry % 4 === 0 && (!same || (oldWords !== undefined && was % 4 === 0));
  if (!aligned) {
    if (same) prior.copy(out, entry, was, was + STAT);
    else out.fill(0, entry, entry + STAT);
    return;
  }
  const at = entry >> 2;
  if (same) {
    const from = was >> 2;
    for (let w = 0; w < STAT_WORDS; w++) words[at + w] = (oldWords as Int32Array)[from + w] as number;
  } else for (let w = 0; w < STAT_WORDS; w++) words[at + w] = 0;
}

function nameFrom(plain: PlainIndex, i: number): number {
  return (plain.at[i] as number) + NAME;
}
