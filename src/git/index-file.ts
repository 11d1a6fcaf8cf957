import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";

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

const HEADER = 12;
/** ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields. */
const STAT_BYTES = 40;

/**
 * Reads an index file's entries in node, one `git ls-files` fewer: versions 2 to 4, object ids of
 * `hashBytes` (20 for sha1, 32 for sha256). Undefined for anything it does not read whole: a split index
 * (`link`: entries live in another file), a sparse index (`sdir`: folders stand for their files), an
 * unknown version or a file that does not parse; the caller then asks git.
 */
export function readIndexFile(path: string, hashBytes = 20, withStat = false): IndexFile | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    // The key from the descriptor the bytes come from: a file replaced in between is not mistaken for it.
    const stat = fstatSync(fd, { bigint: true });
    const bytes = readFileSync(fd);
    const entries = parseIndex(bytes, hashBytes, withStat);
    return (
      entries && {
        entries,
        key: `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`,
        mtimeNs: stat.mtimeNs,
      }
    );
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function parseIndex(bytes: Buffer, hashBytes = 20, withStat = false): IndexEntry[] | undefined {
  if (bytes.length < HEADER + hashBytes || bytes.toString("latin1", 0, 4) !== "DIRC") return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = bytes.readUInt32BE(8);
  const end = bytes.length - hashBytes;
  const entries: IndexEntry[] = [];
  let previous: Buffer = Buffer.alloc(0);
  let at = HEADER;
  for (let i = 0; i < count; i++) {
    const start = at;
    at += STAT_BYTES + hashBytes;
    if (at + 2 > end) return undefined;
    const flags = bytes.readUInt16BE(at);
    at += 2;
    let extended = 0;
    if (flags & 0x4000) {
      if (version < 3 || at + 2 > end) return undefined;
      extended = bytes.readUInt16BE(at);
      at += 2;
    }
    let name: Buffer;
    if (version === 4) {
      // The path is the previous one less N trailing bytes, then this entry's NUL-terminated suffix.
      const strip = readVarint(bytes, at, end);
      if (!strip || strip.value > previous.length) return undefined;
      const nul = bytes.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) return undefined;
      name = Buffer.concat([
        previous.subarray(0, previous.length - strip.value),
        bytes.subarray(strip.next, nul),
      ]);
      at = nul + 1;
    } else {
      const nul = bytes.indexOf(0, at);
      if (nul < 0 || nul >= end) return undefined;
      name = bytes.subarray(at, nul);
      // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
      at = start + ((nul - start + 8) & ~7);
    }
    previous = name;
    entries.push({
      path: name.toString("utf8"),
      stage: (flags >> 12) & 3,
      assumeUnchanged: (flags & 0x8000) !== 0,
      skipWorktree: (extended & 0x4000) !== 0,
      ...(withStat ? { stat: statAt(bytes, start, extended) } : {}),
    });
  }
  // Extensions: a split or sparse index is not read whole from this file alone.
  while (at + 8 <= end) {
    const signature = bytes.toString("latin1", at, at + 4);
    if (signature === "link" || signature === "sdir") return undefined;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return at === end ? entries : undefined;
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
