import { createHash } from "node:crypto";
import { type BigIntStats, lstatSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { type AddedEntry, blobOfPath } from "./add-blob.js";
import { invalidatedCacheTree } from "./cache-tree.js";
import { GitObjects } from "./git-objects.js";
import { writeIndexFile } from "./index-write.js";
import {
  entriesEnd,
  entryAt,
  entrySize,
  HEADER,
  ID,
  NAME,
  nameOf,
  type PlainIndex,
  STAT,
  scanPlainIndex,
} from "./plain-index.js";
import { type ReadBuffer, readReusing } from "./reused-read.js";
import { attributesOutsideTree } from "./stat-check.js";
import { untrackedInvalidated } from "./untracked-edit.js";
import { stillClean } from "./user-index.js";

/** One path `git add -A` would touch: its entry in the old index (-1: none) and what it becomes (none: removed). */
interface Edit {
  path: Buffer;
  /** The old entry's position, or where a new one goes (`exists` false). */
  pos: number;
  exists: boolean;
  entry?: AddedEntry;
}

/** Components `git add` takes without a second thought (verify_path, protectNTFS): anything else is git's. */
const PLAIN_COMPONENT = /^[A-Za-z0-9_+@=,-][A-Za-z0-9._+@=,-]*$/;
const MAX_EDITS = 2000;

/**
 * What `git add -A -- <paths>` does to the private index, done in node for the paths `git status` listed
 * (judge-status.ts: changed, removed and untracked files, each by its path from the top): each listed file
 * hashed as a blob into the object directory (its lstat taken before it is read, as git does), its entry
 * replaced or added in its sorted place with that stat data, a removed file's entry dropped; the cache-tree
 * and the untracked cache invalidated for those paths as git's add does (cache-tree.ts, untracked-cache.ts);
 * the index written under its lock with its checksum and end-of-entries extension. Returns the index written
 * (a view of `out`'s buffer), or undefined with the index file left as it was whenever git must do it: a path
 * that is not a plain file name, a folder listed whole, a `.gitignore` or `.gitattributes` (listed, or
 * beside any listed path or above it), a directory, gitlink or other special file where a listed path is, a
 * file where the index has a folder or the reverse, a listed path neither on disk nor in the index, an
 * index scanPlainIndex does not read whole or with extensions other than TREE, UNTR, EOIE and IEOT, and a
 * racy entry left as it is whose file no longer holds its blob (git's write would smudge it).
 */
export function addInNode(input: {
  top: string;
  indexPath: string;
  objectsDir: string;
  paths: readonly string[];
  read: ReadBuffer;
  out: ReadBuffer;
}): PlainIndex | undefined {
  const { top, indexPath, objectsDir } = input;
  if (input.paths.length === 0 || input.paths.length > MAX_EDITS) return undefined;
  if (!input.paths.every(plainPath) || attributesNear(top, input.paths)) return undefined;
  // The private git reads its own info/attributes and the user's global attributes file too.
  if (attributesOutsideTree(dirname(indexPath))) return undefined;
  const before = statSync(indexPath, { bigint: true });
  const old = scanPlainIndex(readReusing(indexPath, input.read));
  const after = statSync(indexPath, { bigint: true });
  if (!old || !sameFile(before, after)) return undefined;
  const extensions = extensionsOf(old);
  if (!extensions) return undefined;
  const paths = [...new Set(input.paths)].map((path) => Buffer.from(path)).sort(Buffer.compare);
  const edits: Edit[] = [];
  const objects = new GitObjects(objectsDir);
  for (const path of paths) {
    const { pos, exists } = find(old, path);
    if (exists && old.bytes.readUInt32BE((old.at[pos] as number) + 24) === 0o160000) return undefined;
    const entry = blobOfPath(top, path, objects);
    if (entry === "refuse") return undefined;
    if (!entry && !exists) return undefined;
    if (!exists && folderConflict(old, path)) return undefined;
    edits.push({ path, pos, exists, ...(entry ? { entry } : {}) });
  }
  if (racyLeft(top, old, edits, after)) return undefined;
  const tree =
    extensions.tree &&
    invalidatedCacheTree(
      extensions.tree,
      edits.map((edit) => edit.path.toString("utf8")),
    );
  // git's untracked cache forgets a folder when an entry is added to it or removed, not when one is replaced.
  const moved = edits.filter((edit) => !edit.exists || !edit.entry).map((edit) => edit.path.toString("utf8"));
  const untracked = extensions.untracked && untrackedInvalidated(extensions.untracked, moved);
  if ((extensions.tree && !tree) || (extensions.untracked && !untracked)) return undefined;
  const written = buildIndex(
    old,
    edits,
    [
      ...(tree ? [{ signature: "TREE", body: tree }] : []),
      ...(untracked ? [{ signature: "UNTR", body: untracked }] : []),
    ],
    input.out,
  );
  writeIndexFile(indexPath, written.bytes);
  return written;
}

/** Each component a plain name: no `.git`-like, NTFS-special or non-ASCII name, no trailing dot, no `dir/`. */
function plainPath(path: string): boolean {
  const parts = path.split("/");
  return parts.every(
    (part) =>
      PLAIN_COMPONENT.test(part) &&
      !part.endsWith(".") &&
      !/^\.git/i.test(part) &&
      !/^git~/i.test(part) &&
      part.length < 256,
  );
}

/** A `.gitattributes` in the top folder or any folder on the way to a listed path (git reads each for add). */
function attributesNear(top: string, paths: readonly string[]): boolean {
  const folders = new Set<string>([""]);
  for (const path of paths)
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1))
      folders.add(path.slice(0, slash + 1));
  try {
    for (const folder of folders)
      if (lstatSync(join(top, folder, ".gitattributes"), { throwIfNoEntry: false })) return true;
  } catch {
    return true; // a file where a folder on the way was: git's to say what that is
  }
  return false;
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** The TREE and UNTR bodies; undefined for any other extension but IEOT and EOIE (rebuilt, or dropped). */
function extensionsOf(plain: PlainIndex): { tree?: Buffer; untracked?: Buffer } | undefined {
  const { bytes } = plain;
  // The index itself holding a .gitattributes anywhere: attributes git might read from there.
  if (bytes.indexOf(".gitattributes") >= 0) return undefined;
  let at = entriesEnd(plain);
  const end = bytes.length - ID;
  const found: { tree?: Buffer; untracked?: Buffer } = {};
  while (at + 8 <= end) {
    const signature = bytes.toString("latin1", at, at + 4);
    const body = bytes.subarray(at + 8, at + 8 + bytes.readUInt32BE(at + 4));
    if (signature === "TREE") found.tree = body;
    else if (signature === "UNTR") found.untracked = body;
    else if (signature !== "EOIE" && signature !== "IEOT") return undefined;
    at += 8 + body.length;
  }
  return found;
}

/** The entry named `path`, or where it would go (git's order: bytes, then length). */
function find(plain: PlainIndex, path: Buffer): { pos: number; exists: boolean } {
  let low = 0;
  let high = plain.count;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = Buffer.compare(nameOf(plain, mid), path);
    if (order === 0) return { pos: mid, exists: true };
    if (order < 0) low = mid + 1;
    else high = mid;
  }
  return { pos: low, exists: false };
}

/** A new path with an entry where one of its folders is, or with entries below it (a folder in the index). */
function folderConflict(plain: PlainIndex, path: Buffer): boolean {
  for (let slash = path.indexOf(0x2f); slash >= 0; slash = path.indexOf(0x2f, slash + 1))
    if (find(plain, path.subarray(0, slash)).exists) return true;
  const below = Buffer.concat([path, Buffer.from("/")]);
  const { pos } = find(plain, below);
  return pos < plain.count && nameOf(plain, pos).subarray(0, below.length).equals(below);
}

/**
 * Whether an entry the add leaves as it is is racy against the index file read (its mtime not older than the
 * file's, to the second: this git compares no nanoseconds, and the rule holds for one that does) and its file
 * no longer holds its blob at that stat data: git's write would compare that content then (and smudge the
 * entry). One whose file still has its blob's bytes (user-index.ts stillClean) is left as git leaves it.
 */
function racyLeft(top: string, plain: PlainIndex, edits: readonly Edit[], index: BigIntStats): boolean {
  const sec = Number(index.mtimeNs / 1_000_000_000n);
  const edited = new Set(edits.filter((edit) => edit.exists).map((edit) => edit.pos));
  const { bytes } = plain;
  for (let i = 0; i < plain.count; i++) {
    if (bytes.readUInt32BE((plain.at[i] as number) + 8) < sec || edited.has(i)) continue;
    if (!stillClean(top, entryAt(plain, i))) return true;
  }
  return false;
}

/** The new index's bytes in `out`'s buffer: old entries copied in runs around the edits, extensions, checksum. */
function buildIndex(
  old: PlainIndex,
  edits: readonly Edit[],
  extensions: readonly { signature: string; body: Buffer }[],
  out: ReadBuffer,
): PlainIndex {
  const oldEnd = entriesEnd(old);
  const start = (i: number) => (i < old.count ? (old.at[i] as number) : oldEnd);
  let size = oldEnd;
  let count = old.count;
  for (const edit of edits) {
    if (edit.exists) {
      size -= start(edit.pos + 1) - start(edit.pos);
      count -= 1;
    }
    if (edit.entry) {
      size += entrySize(edit.path.length);
      count += 1;
    }
  }
  const extensionBytes = extensions.reduce((sum, ext) => sum + 8 + ext.body.length, 0);
  const total = size + extensionBytes + 8 + 4 + ID + ID;
  if (!out.buffer || out.buffer.length < total) out.buffer = Buffer.allocUnsafeSlow(Math.ceil(total * 1.25));
  const bytes = out.buffer.subarray(0, total);
  old.bytes.copy(bytes, 0, 0, HEADER);
  bytes.writeUInt32BE(count, 8);
  const at = new Uint32Array(count);
  const nameEnd = new Uint32Array(count);
  let pos = HEADER;
  let n = 0;
  let i = 0;
  // Old entries [i, to) copied as one run: only their positions move.
  const copyOld = (to: number) => {
    if (to <= i) return;
    const from = start(i);
    old.bytes.copy(bytes, pos, from, start(to));
    const shift = pos - from;
    for (; i < to; i++, n++) {
      at[n] = (old.at[i] as number) + shift;
      nameEnd[n] = (old.nameEnd[i] as number) + shift;
    }
    pos += start(to) - from;
  };
  for (const edit of edits) {
    copyOld(edit.pos);
    if (edit.exists) i = edit.pos + 1;
    if (!edit.entry) continue;
    const { stat, mode, id } = edit.entry;
    stat.copy(bytes, pos, 0, STAT);
    bytes.writeUInt32BE(mode, pos + 24);
    id.copy(bytes, pos + STAT);
    bytes.writeUInt16BE(Math.min(edit.path.length, 0xfff), pos + STAT + ID);
    edit.path.copy(bytes, pos + NAME);
    const length = entrySize(edit.path.length);
    bytes.fill(0, pos + NAME + edit.path.length, pos + length);
    at[n] = pos;
    nameEnd[n] = pos + NAME + edit.path.length;
    n += 1;
    pos += length;
  }
  copyOld(old.count);
  const entriesEndAt = pos;
  const headers = createHash("sha1");
  for (const ext of extensions) {
    bytes.write(ext.signature, pos, "latin1");
    bytes.writeUInt32BE(ext.body.length, pos + 4);
    headers.update(bytes.subarray(pos, pos + 8));
    ext.body.copy(bytes, pos + 8);
    pos += 8 + ext.body.length;
  }
  bytes.write("EOIE", pos, "latin1");
  bytes.writeUInt32BE(4 + ID, pos + 4);
  bytes.writeUInt32BE(entriesEndAt, pos + 8);
  headers.digest().copy(bytes, pos + 12);
  pos += 8 + 4 + ID;
  createHash("sha1").update(bytes.subarray(0, pos)).digest().copy(bytes, pos);
  return { bytes, version: old.version, count, at, nameEnd };
}
