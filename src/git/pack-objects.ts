import { closeSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { inflateSync } from "node:zlib";

const TYPES = ["", "commit", "tree", "blob", "tag"];
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Deeper delta chains than git makes by default (50) are left to git. */
const MAX_DEPTH = 64;
/** Objects larger than this are left to git (gantry reads commits and trees here, never big blobs). */
const MAX_SIZE = 64 * 1024 * 1024;

interface PackIndex {
  pack: string;
  bytes: Buffer;
  count: number;
}

/**
 * Objects of a sha1 repository's pack files, read in node: the version-2 `.idx` found by binary search,
 * the entry inflated, deltas (by offset or by id within the pack) applied. Undefined for anything else
 * (another index version, a chain too deep, a base in another pack): the caller asks git then. The caller
 * checks that what it gets hashes to the id it asked for.
 */
export class PackObjects {
  private indexes: PackIndex[] | undefined;

  constructor(private readonly objectsDir: string) {}

  read(id: string): { type: string; body: Buffer } | undefined {
    const want = Buffer.from(id, "hex");
    for (const index of this.packIndexes()) {
      const offset = findOffset(index, want);
      if (offset === undefined) continue;
      const fd = openSync(index.pack, "r");
      try {
        return readAt(fd, index, offset, 0);
      } finally {
        closeSync(fd);
      }
    }
    return undefined;
  }

  /** Whether a pack this reads holds the object (its index lists it). */
  has(id: string): boolean {
    const want = Buffer.from(id, "hex");
    return this.packIndexes().some((index) => findOffset(index, want) !== undefined);
  }

  private packIndexes(): PackIndex[] {
    if (this.indexes) return this.indexes;
    const dir = join(this.objectsDir, "pack");
    let names: string[];
    try {
      names = readdirSync(dir).filter((name) => name.endsWith(".idx"));
    } catch {
      names = [];
    }
    this.indexes = [];
    for (const name of names) {
      const bytes = readFileSync(join(dir, name));
      if (bytes.length < 8 + 1024 || bytes.readUInt32BE(0) !== 0xff744f63 || bytes.readUInt32BE(4) !== 2)
        continue;
      const count = bytes.readUInt32BE(8 + 255 * 4);
      this.indexes.push({ pack: join(dir, `${name.slice(0, -4)}.pack`), bytes, count });
    }
    return this.indexes;
  }
}

function findOffset(index: PackIndex, id: Buffer): number | undefined {
  const { bytes, count } = index;
  const first = id[0] ?? 0;
  let low = first === 0 ? 0 : bytes.readUInt32BE(8 + (first - 1) * 4);
  let high = bytes.readUInt32BE(8 + first * 4);
  const ids = 8 + 256 * 4;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const order = Buffer.compare(bytes.subarray(ids + mid * 20, ids + mid * 20 + 20), id);
    if (order === 0) return offsetOf(index, mid);
    if (order < 0) low = mid + 1;
    else high = mid;
  }
  return undefined;
  function offsetOf(idx: PackIndex, at: number): number | undefined {
    const offsets = ids + count * 20 + count * 4;
    const small = idx.bytes.readUInt32BE(offsets + at * 4);
    if (!(small & 0x80000000)) return small;
    const large = offsets + count * 4 + (small & 0x7fffffff) * 8;
    const value = idx.bytes.readBigUInt64BE(large);
    return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  }
}

function readAt(
  fd: number,
  index: PackIndex,
  offset: number,
  depth: number,
): { type: string; body: Buffer } | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const head = Buffer.alloc(32);
  const got = readSync(fd, head, 0, head.length, offset);
  let at = 0;
  let byte = head[at++] ?? 0;
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  for (let shift = 4; byte & 0x80; shift += 7) {
    if (at >= got || shift > 35) return undefined;
    byte = head[at++] ?? 0;
    size += (byte & 0x7f) * 2 ** shift;
  }
  if (size > MAX_SIZE) return undefined;
  let base: { type: string; body: Buffer } | undefined;
  if (type === OFS_DELTA) {
    byte = head[at++] ?? 0;
    let distance = byte & 0x7f;
    while (byte & 0x80) {
      if (at >= got) return undefined;
      byte = head[at++] ?? 0;
      distance = (distance + 1) * 128 + (byte & 0x7f);
    }
    if (distance <= 0 || distance > offset) return undefined;
    base = readAt(fd, index, offset - distance, depth + 1);
  } else if (type === REF_DELTA) {
    const baseOffset = findOffset(index, head.subarray(at, at + 20));
    at += 20;
    if (baseOffset === undefined) return undefined;
    base = readAt(fd, index, baseOffset, depth + 1);
  } else if (!TYPES[type]) return undefined;
  const data = inflateAt(fd, offset + at, size);
  if (!data) return undefined;
  if (type !== OFS_DELTA && type !== REF_DELTA) return { type: TYPES[type] as string, body: data };
  if (!base) return undefined;
  const body = applyDelta(base.body, data);
  return body && { type: base.type, body };
}

/** The zlib stream at `position`, of `size` bytes inflated; read in growing chunks until it is whole. */
function inflateAt(fd: number, position: number, size: number): Buffer | undefined {
  for (let length = size + 64; length <= size * 2 + 1024 * 1024; length *= 4) {
    const chunk = Buffer.alloc(length);
    const got = readSync(fd, chunk, 0, length, position);
    try {
      const out = inflateSync(chunk.subarray(0, got));
      return out.length === size ? out : undefined;
    } catch {
      if (got < length) return undefined; // the pack ends before the stream does
    }
  }
  return undefined;
}

/** git's delta format: source and target sizes, then copies from the source and literal inserts. */
export function applyDelta(source: Buffer, delta: Buffer): Buffer | undefined {
  let at = 0;
  const varint = () => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = delta[at++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80 && at < delta.length);
    return value;
  };
  if (varint() !== source.length) return undefined;
  const target = Buffer.alloc(varint());
  let out = 0;
  while (at < delta.length) {
    const op = delta[at++] ?? 0;
    if (op & 0x80) {
      let from = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) from += (delta[at++] ?? 0) * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (16 << i)) length += (delta[at++] ?? 0) * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (from + length > source.length || out + length > target.length) return undefined;
      source.copy(target, out, from, from + length);
      out += length;
    } else if (op > 0) {
      if (at + op > delta.length || out + op > target.length) return undefined;
      delta.copy(target, out, at, at + op);
      at += op;
      out += op;
    } else return undefined;
  }
  return out === target.length ? target : undefined;
}
