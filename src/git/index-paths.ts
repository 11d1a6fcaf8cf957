import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { scanIndex, versionKey } from "./index-file.js";

/** What the last read left: the file's bytes, where each name is in them, and the paths decoded. */
interface LastRead {
  /** Which version of the file (versionKey): while the file is that one, its paths are these. */
  key: string;
  bytes: Buffer;
  hashBytes: number;
  /** [from, to) of each entry's name in `bytes`, in the file's order. */
  names: Uint32Array;
  count: number;
  paths: Set<string>;
}

/**
 * The paths of an index file, kept from one read to the next. A story's commit rewrites the user's index
 * with a few paths changed; at 50,000 entries decoding every path again costs more than a hundred
 * milliseconds and as many strings. So the new file's names are compared, as bytes, with the last file's
 * (git keeps both sorted by name: a merge of the two lists), and only the names that were added or
 * removed are decoded. Whatever this cannot read that way (version 4's compressed names, an unmerged
 * entry, names out of order, a file readIndexFile would not read) is decoded whole, or is undefined
 * where readIndexFile is.
 */
export class IndexPaths {
  private last: LastRead | undefined;

  /** The paths now; the set is this reader's own and changes with its next read (copy it to keep it). */
  read(path: string, hashBytes = 20): ReadonlySet<string> | undefined {
    const before = this.last?.hashBytes === hashBytes ? this.last : undefined;
    const file = readBytes(path, before?.key);
    if (!file) return undefined;
    if (!file.bytes) return before?.paths;
    const { key, bytes } = file;
    const now = namesOf(bytes, hashBytes);
    if (!now) {
      this.last = undefined;
      return bytes.length > 0 ? decodeAll(bytes, hashBytes) : undefined;
    }
    const paths = before ? changedSince(before, bytes, now) : decodeNames(bytes, now);
    this.last = { key, bytes, hashBytes, names: now.names, count: now.count, paths };
    return paths;
  }

  /** Whether the last read's bytes are in `memory` (a buffer lent again must not be). */
  holds(memory: ArrayBufferLike): boolean {
    return this.last?.bytes.buffer === memory;
  }

  /** The bytes of the version `key` names of the file this read last, when it was that one. */
  bytesOf(key: string): Buffer | undefined {
    return this.last?.key === key ? this.last.bytes : undefined;
  }

  /**
   * The index file gantry just wrote (user-index.ts) over the one `oldKey` names: when that is the file this
   * read last, its paths are the last ones less those removed plus those added, and the next read of the
   * new file (`key`) reads nothing. The key is taken from the descriptor written, after the rename.
   */
  written(file: {
    oldKey: string;
    key?: string;
    bytes: Buffer;
    names: Uint32Array;
    count: number;
    added: readonly string[];
    removed: readonly string[];
  }): void {
    const last = this.last;
    if (!last || file.key === undefined || last.key !== file.oldKey || last.hashBytes !== 20) return;
    for (const path of file.removed) last.paths.delete(path);
    for (const path of file.added) last.paths.add(path);
    this.last = { ...last, key: file.key, bytes: file.bytes, names: file.names, count: file.count };
  }
}

/**
 * The tracked files below `prefix`, as paths from there; undefined: ask git. At the top level that is the
 * reader's own set (at 50,000 paths a copy a story cost more than reading the index), which its next read
 * or `written` changes.
 */
export function trackedBelow(
  reader: IndexPaths,
  index: string,
  prefix: string,
  hashBytes: number,
): ReadonlySet<string> | undefined {
  const paths = reader.read(index, hashBytes);
  if (!paths || prefix === "") return paths;
  const files = new Set<string>();
  for (const path of paths) if (path.startsWith(prefix)) files.add(path.slice(prefix.length));
  return files;
}

/** The file's version and its bytes, from one descriptor; no bytes when it is still the version `known`. */
function readBytes(path: string, known?: string): { key: string; bytes?: Buffer } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const stat = fstatSync(fd, { bigint: true });
    if (!stat.isFile()) return undefined;
    const key = versionKey(stat);
    return key === known ? { key } : { key, bytes: readFileSync(fd) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Where each name is, for a version 2 or 3 index of stage-0 entries in strictly increasing name order (what
 * git writes); undefined otherwise (the caller decodes whole, or gives up with readIndexFile's answer).
 */
function namesOf(bytes: Buffer, hashBytes: number): { names: Uint32Array; count: number } | undefined {
  if (bytes.length < 12 || bytes.readUInt32BE(4) === 4) return undefined;
  let names = new Uint32Array(2 * Math.min(bytes.readUInt32BE(8), bytes.length));
  let count = 0;
  let ordered = true;
  const whole = scanIndex(bytes, hashBytes, (_at, flags, _extended, name, from, to) => {
    if (!ordered) return;
    // An unmerged entry repeats a path; a name not after the one before is not git's order.
    if (
      (flags >> 12) & 3 ||
      (count > 0 && bytes.compare(bytes, names[2 * count - 2], names[2 * count - 1], from, to) <= 0)
    ) {
      ordered = false;
      return;
    }
    if (name !== bytes) {
      ordered = false;
      return;
    }
    if (2 * count + 2 > names.length) {
      const grown = new Uint32Array(names.length * 2 + 2);
      grown.set(names);
      names = grown;
    }
    names[2 * count] = from;
    names[2 * count + 1] = to;
    count++;
  });
  return whole && ordered ? { names, count } : undefined;
}

function decodeNames(bytes: Buffer, at: { names: Uint32Array; count: number }): Set<string> {
  const paths = new Set<string>();
  for (let i = 0; i < at.count; i++) paths.add(bytes.toString("utf8", at.names[2 * i], at.names[2 * i + 1]));
  return paths;
}

function decodeAll(bytes: Buffer, hashBytes: number): Set<string> | undefined {
  const paths = new Set<string>();
  const whole = scanIndex(bytes, hashBytes, (_at, _flags, _extended, name, from, to) => {
    paths.add(name.toString("utf8", from, to));
  });
  return whole ? paths : undefined;
}

/** The last read's paths (that set, changed) less the names gone, plus the names new: a merge of two sorted lists. */
function changedSince(
  before: LastRead,
  bytes: Buffer,
  now: { names: Uint32Array; count: number },
): Set<string> {
  const paths = before.paths;
  const old = before.names;
  const fresh = now.names;
  let i = 0;
  let j = 0;
  while (i < before.count || j < now.count) {
    let order: number;
    if (i >= before.count) order = 1;
    else if (j >= now.count) order = -1;
    else order = before.bytes.compare(bytes, fresh[2 * j], fresh[2 * j + 1], old[2 * i], old[2 * i + 1]);
    if (order === 0) {
      i++;
      j++;
    } else if (order < 0) {
      paths.delete(before.bytes.toString("utf8", old[2 * i], old[2 * i + 1]));
      i++;
    } else {
      paths.add(bytes.toString("utf8", fresh[2 * j], fresh[2 * j + 1]));
      j++;
    }
  }
  return paths;
}
