import { type BigIntStats, closeSync, fstatSync, openSync, readFileSync } from "node:fs";

/** One entry of a git index file: what `git ls-files -v` shows of it. */
export interface IndexEntry {
  path: string;
  /** 0, or 1-3 for the sides of an unresolved merge. */
  stage: number;
  /** assume-unchanged (CE_VALID). */
  assumeUnchanged: boolean;
  skipWorktree: boolean;
  /** Read only when asked (parseIndex's `withStat`). */
  stat?: IndexStat;
}

/** An entry's cached stat data as git keeps it: 32-bit fields (seconds, inode, size truncated). */
export interface IndexStat {
  ctimeSec: number;
  ctimeNsec: number;
  mtimeSec: number;
  mtimeNsec: number;
  ino: number;
  /** git's mode: 0o100644, 0o100755, 0o120000 (symlink), 0o160000 (gitlink). */
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** intent-to-add (`git add -N`): an entry with no content yet. */
  intentToAdd: boolean;
}

export interface IndexFile {
  entries: IndexEntry[];
  /** Which version of the file was read (the same key as tamper-snapshot's fileKey). */
  key: string;
  /** The file's own mtime: git's racy-entry rule compares entries' mtimes with it. */
  mtimeNs?: bigint;
}

/** "DIRC", the version and the entry count. */
export const HEADER = 12;
/** ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields. */
export const STAT_BYTES = 40;
/** Extensions that keep a file from being read whole alone: a split index's link, a sparse index's folders. */
const NOT_WHOLE = (signature: string) => signature === "link" || signature === "sdir";

/**
 * Reads an index file's entries in node, one `git ls-files` fewer: versions 2 to 4, object ids of
 * `hashBytes` (20 for sha1, 32 for sha256). Undefined for anything it does not read whole: a split index
 * (`link`: entries live in another file), a sparse index (`sdir`: folders stand for their files), an
 * unknown version or a file that does not parse; the caller then asks git.
 */
export function readIndexFile(path: string, hashBytes = 20, withStat = false): IndexFile | undefined {
  const read = readWhole(path);
  const entries = read && parseIndex(read.bytes, hashBytes, withStat);
  return entries && { entries, key: read.key, mtimeNs: read.mtimeNs };
}

/** The file's bytes and which version of it they are, from one descriptor; undefined when it cannot be read. */
function readWhole(path: string): { bytes: Buffer; key: string; mtimeNs: bigint } | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    // The key from the descriptor the bytes come from: a file replaced in between is not mistaken for it.
    const stat = fstatSync(fd, { bigint: true });
    const bytes = readFileSync(fd);
    return { bytes, key: versionKey(stat), mtimeNs: stat.mtimeNs };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Which version of a file this is (the same key as tamper-snapshot's fileKey): git replaces the index on every write. */
export function versionKey(stat: BigIntStats): string {
  return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

export function parseIndex(bytes: Buffer, hashBytes = 20, withStat = false): IndexEntry[] | undefined {
  const entries: IndexEntry[] = [];
  const whole = scanIndex(bytes, hashBytes, (at, flags, extended, name, from, to) => {
    const entry: IndexEntry = {
      path: name.toString("utf8", from, to),
      stage: (flags >> 12) & 3,
      assumeUnchanged: (flags & ASSUME_VALID) !== 0,
      skipWorktree: (extended & SKIP_WORKTREE) !== 0,
    };
    if (withStat) entry.stat = statAt(bytes, at, extended);
    entries.push(entry);
  });
  return whole ? entries : undefined;
}

/**
 * The flags `indexFlagsOf` gives, read without making an entry or a path of every one (a path is decoded
 * only for a flagged entry): at 50,000 entries this is a scan of the headers, where readIndexFile decodes
 * 50,000 paths. Undefined where readIndexFile is.
 */
export function readIndexFlags(
  path: string,
  hashBytes = 20,
): { key: string; indexFlags: Set<string> } | undefined {
  const read = readWhole(path);
  const indexFlags = read && indexFlagsIn(read.bytes, hashBytes);
  return read && indexFlags ? { key: read.key, indexFlags } : undefined;
}

/** readIndexFlags of an index file's bytes, read already. */
export function indexFlagsIn(bytes: Buffer, hashBytes = 20): Set<string> | undefined {
  const flags = new Set<string>();
  const whole = scanIndex(bytes, hashBytes, (_at, bits, extended, name, from, to) => {
    const skipWorktree = ((bits >> 12) & 3) === 0 && (extended & SKIP_WORKTREE) !== 0;
    const assumeUnchanged = (bits & ASSUME_VALID) !== 0;
    if (!skipWorktree && !assumeUnchanged) return;
    const entryPath = name.toString("utf8", from, to);
    if (skipWorktree) flags.add(`S ${entryPath}`);
    if (assumeUnchanged) flags.add(`h ${entryPath}`);
  });
  return whole ? flags : undefined;
}

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const NAME_MASK = 0x0fff;
const SKIP_WORKTREE = 0x4000;

/**
 * Calls `visit` with each entry's offset, flags, extended flags and path bytes (`name[from, to)`: the file
 * itself for versions 2 and 3, a buffer reused from entry to entry for version 4, whose paths are the
 * previous one less N bytes plus a suffix). False when the bytes are not a whole index this reads: see
 * readIndexFile.
 */
export function scanIndex(
  bytes: Buffer,
  hashBytes: number,
  visit: (at: number, flags: number, extended: number, name: Buffer, from: number, to: number) => void,
  refuseExtension: (signature: string) => boolean = NOT_WHOLE,
): boolean {
  if (bytes.length < HEADER + hashBytes || bytes.toString("latin1", 0, 4) !== "DIRC") return false;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return false;
  const count = bytes.readUInt32BE(8);
  const end = bytes.length - hashBytes;
  let previous = Buffer.allocUnsafe(version === 4 ? 4096 : 0);
  let previousLength = 0;
  let at = HEADER;
  for (let i = 0; i < count; i++) {
    const start = at;
    at += STAT_BYTES + hashBytes;
    if (at + 2 > end) return false;
    const flags = bytes.readUInt16BE(at);
    at += 2;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > end) return false;
      extended = bytes.readUInt16BE(at);
      at += 2;
    }
    if (version === 4) {
      const strip = readVarint(bytes, at, end);
      if (!strip || strip.value > previousLength) return false;
      const nul = bytes.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) return false;
      const kept = previousLength - strip.value;
      const length = kept + nul - strip.next;
      if (length > previous.length) {
        const grown = Buffer.allocUnsafe(Math.max(length, previous.length * 2));
        previous.copy(grown, 0, 0, kept);
        previous = grown;
      }
      bytes.copy(previous, kept, strip.next, nul);
      previousLength = length;
      visit(start, flags, extended, previous, 0, length);
      at = nul + 1;
    } else {
      // The name's length is in the flags unless it is 0xFFF or more; the NUL ends it either way.
      const short = flags & NAME_MASK;
      const nul = short < NAME_MASK ? at + short : bytes.indexOf(0, at);
      if (nul < 0 || nul >= end || bytes[nul] !== 0) return false;
      visit(start, flags, extended, bytes, at, nul);
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      at = start + ((nul - start + 8) & ~7);
    }
  }
  // Extensions: by default a split or sparse index is not read whole from this file alone.
  while (at + 8 <= end) {
    if (refuseExtension(bytes.toString("latin1", at, at + 4))) return false;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return at === end;
}

function statAt(bytes: Buffer, at: number, extended: number): IndexStat {
  const field = (i: number) => bytes.readUInt32BE(at + 4 * i);
  return {
    ctimeSec: field(0),
    ctimeNsec: field(1),
    mtimeSec: field(2),
    mtimeNsec: field(3),
    ino: field(5),
    mode: field(6),
    uid: field(7),
    gid: field(8),
    size: field(9),
    intentToAdd: (extended & 0x2000) !== 0,
  };
}

/** git's offset varint (varint.c): 7 bits a byte, each continuation adding one. */
function readVarint(bytes: Buffer, at: number, end: number): { value: number; next: number } | undefined {
  let byte = bytes[at++];
  if (byte === undefined || at > end) return undefined;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = bytes[at++];
    if (byte === undefined || at > end || value > 0xffffff) return undefined;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: at };
}

/** The flags `parseIndexFlags` reads from `git ls-files -v` (`S path` skip-worktree, `h path` assume-unchanged). */
export function indexFlagsOf(entries: readonly IndexEntry[]): Set<string> {
  const flags = new Set<string>();
  for (const entry of entries) {
    // ls-files -v: an unmerged entry's tag is M whatever its skip-worktree bit; lowercase when assume-unchanged.
    if (entry.stage === 0 && entry.skipWorktree) flags.add(`S ${entry.path}`);
    if (entry.assumeUnchanged) flags.add(`h ${entry.path}`);
  }
  return flags;
}
