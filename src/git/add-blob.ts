import {
  type BigIntStats,
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
} from "node:fs";
import { join } from "node:path";
import type { GitObjects } from "./git-objects.js";
import { STAT } from "./plain-index.js";

/** A file as `git add` records it: git's mode, its blob's id and the stat data taken before it was read. */
export interface AddedEntry {
  mode: number;
  id: Buffer;
  stat: Buffer;
}

/**
 * The path's file hashed as git's add hashes it with gantry's private config (no attributes, no filters,
 * symlinks and the executable bit trusted): a regular file's bytes, a symlink's target, each written as a
 * loose blob. Undefined when nothing is there (the entry is removed); "refuse" for anything git must look at
 * (a folder, a nested repository, a special file, a path through a file, a file that changed while read).
 */
export function blobOfPath(
  top: string,
  path: Buffer,
  objects: GitObjects,
): AddedEntry | undefined | "refuse" {
  const full = join(top, path.toString("utf8"));
  let stat: BigIntStats | undefined;
  try {
    stat = lstatSync(full, { bigint: true, throwIfNoEntry: false });
  } catch {
    return "refuse";
  }
  if (!stat) return undefined;
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(full, { encoding: "buffer" });
    if (BigInt(target.length) !== stat.size) return "refuse";
    return {
      mode: 0o120000,
      id: Buffer.from(objects.write("blob", target), "hex"),
      stat: statData(stat, 0o120000),
    };
  }
  if (!stat.isFile()) return "refuse";
  const content = readWhole(full, stat);
  if (!content) return "refuse";
  const mode = stat.mode & 0o100n ? 0o100755 : 0o100644;
  return { mode, id: Buffer.from(objects.write("blob", content), "hex"), stat: statData(stat, mode) };
}

/** The file's bytes, read from a descriptor that is still the file lstat saw, exactly its size. */
function readWhole(full: string, seen: BigIntStats): Buffer | undefined {
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const now = fstatSync(fd, { bigint: true });
    if (
      now.ino !== seen.ino ||
      now.size !== seen.size ||
      now.mtimeNs !== seen.mtimeNs ||
      now.ctimeNs !== seen.ctimeNs
    )
      return undefined;
    const size = Number(seen.size);
    const content = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const read = readSync(fd, content, at, size - at, at);
      if (read === 0) return undefined;
      at += read;
    }
    return content;
  } finally {
    closeSync(fd);
  }
}

const low32 = (value: bigint) => Number(value & 0xffffffffn);

/** git's stat data (fill_stat_data): ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size, 32 bits each. */
function statData(stat: BigIntStats, mode: number): Buffer {
  const out = Buffer.alloc(STAT);
  const fields = [
    stat.ctimeNs / 1_000_000_000n,
    stat.ctimeNs % 1_000_000_000n,
    stat.mtimeNs / 1_000_000_000n,
    stat.mtimeNs % 1_000_000_000n,
    stat.dev,
    stat.ino,
    BigInt(mode),
    stat.uid,
    stat.gid,
    stat.size,
  ];
  for (const [i, value] of fields.entries()) out.writeUInt32BE(low32(value), 4 * i);
  return out;
}
