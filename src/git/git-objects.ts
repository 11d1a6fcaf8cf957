import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { PackObjects } from "./pack-objects.js";

/** The tree with nothing in it (sha1): git knows it without an object file. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** One entry of a tree object: mode as git writes it ("40000", "100644", …), name and id as bytes. */
export interface TreeEntry {
  mode: string;
  name: Buffer;
  id: Buffer;
}

/**
 * Objects whose content is known (read and checked, or written) this run, by "<type> <id>": an id names its
 * content, so the next commit reads gantry's last one, its trees and .gantry/'s without inflating them again.
 */
const known = new Map<string, Buffer>();
const MAX_KNOWN = 1024;

function remember(type: string, id: string, body: Buffer): void {
  if (known.size >= MAX_KNOWN) known.clear();
  known.set(`${type} ${id}`, body);
}

/**
 * Objects of a sha1 repository, read and written in node as git's object format has them:
 * "<type> <length>\0<body>", named by its sha1, zlib-deflated under objects/xx/ when loose. Read loose or
 * from a pack (pack-objects.ts), and taken only when the content hashes to the id asked for; undefined for
 * anything else (an alternate, a pack it does not read): the caller asks git then. Written loose only.
 * Objects are only ever added, named by their content: writing one never changes another.
 */
export class GitObjects {
  private packs: PackObjects | undefined;

  constructor(private readonly dir: string) {}

  private path(id: string): string {
    return join(this.dir, id.slice(0, 2), id.slice(2));
  }

  read(id: string, type: string): Buffer | undefined {
    const seen = known.get(`${type} ${id}`);
    if (seen) return seen;
    const body = this.readChecked(id, type);
    if (body) remember(type, id, body);
    return body;
  }

  private readChecked(id: string, type: string): Buffer | undefined {
    let raw: Buffer;
    try {
      raw = inflateSync(readFileSync(this.path(id)));
    } catch {
      return this.fromPacks(id, type);
    }
    const nul = raw.indexOf(0);
    if (nul < 0 || raw.toString("latin1", 0, nul) !== `${type} ${raw.length - nul - 1}`) return undefined;
    const body = raw.subarray(nul + 1);
    // A damaged or planted file is not taken for the object its name says.
    return objectId(type, body) === id ? body : undefined;
  }

  private fromPacks(id: string, type: string): Buffer | undefined {
    this.packs ??= new PackObjects(this.dir);
    try {
      const found = this.packs.read(id);
      return found?.type === type && objectId(type, found.body) === id ? found.body : undefined;
    } catch {
      return undefined;
    }
  }

  readTree(id: string): TreeEntry[] | undefined {
    if (id === EMPTY_TREE) return [];
    const body = this.read(id, "tree");
    return body && parseTree(body);
  }

  /** Every blob, link and gitlink below `id`, paths prefixed with `base`; undefined when a tree cannot be read. */
  listTree(id: string, base: string): { path: string; mode: string; id: Buffer }[] | undefined {
    const entries = this.readTree(id);
    if (!entries) return undefined;
    const found: { path: string; mode: string; id: Buffer }[] = [];
    for (const entry of entries) {
      const path = `${base}${entry.name.toString("utf8")}`;
      if (entry.mode !== "40000") {
        found.push({ path, mode: entry.mode, id: entry.id });
        continue;
      }
      const below = this.listTree(entry.id.toString("hex"), `${path}/`);
      if (!below) return undefined;
      found.push(...below);
    }
    return found;
  }

  /**
   * Whether the object is in the repository now, loose or in a pack this reads (not read nor checked: what
   * `git write-tree` asks of a tree its cache-tree names before it reuses it).
   */
  has(id: string): boolean {
    if (existsSync(this.path(id))) return true;
    this.packs ??= new PackObjects(this.dir);
    try {
      return this.packs.has(id);
    } catch {
      return false;
    }
  }

  /** Writes the object unless it is there already; returns its id. */
  write(type: string, body: Buffer): string {
    const header = Buffer.from(`${type} ${body.length}\0`, "latin1");
    const id = createHash("sha1").update(header).update(body).digest("hex");
    // Trees and commits are read back (the commit after the judge); a blob never is, and a story may add
    // thousands of files: kept, they would push the trees out.
    if (type !== "blob") remember(type, id, body);
    const final = this.path(id);
    if (existsSync(final)) return id;
    mkdirSync(join(this.dir, id.slice(0, 2)), { recursive: true });
    const temp = `${final}.${process.pid}.tmp`;
    const fd = openSync(temp, "wx", 0o444);
    try {
      writeSync(fd, deflateSync(Buffer.concat([header, body]), { level: 1 }));
    } catch (error) {
      closeSync(fd);
      rmSync(temp, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(temp, final);
    return id;
  }

  writeTree(entries: readonly TreeEntry[]): string {
    return this.write("tree", serializeTree(entries));
  }
}

export function objectId(type: string, body: Buffer): string {
  return createHash("sha1").update(`${type} ${body.length}\0`, "latin1").update(body).digest("hex");
}

export function parseTree(body: Buffer): TreeEntry[] | undefined {
  const entries: TreeEntry[] = [];
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    const nul = body.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 21 > body.length) return undefined;
    entries.push({
      mode: body.toString("latin1", at, space),
      name: body.subarray(space + 1, nul),
      id: body.subarray(nul + 1, nul + 21),
    });
    at = nul + 21;
  }
  return entries;
}

function serializeTree(entries: readonly TreeEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries)
    parts.push(Buffer.from(`${entry.mode} `, "latin1"), entry.name, Buffer.from([0]), entry.id);
  return Buffer.concat(parts);
}

/** git's tree order: names byte by byte, a tree's name as if it ended in "/". */
export function sortKey(entry: TreeEntry): Buffer {
  return entry.mode === "40000" ? Buffer.concat([entry.name, Buffer.from("/")]) : entry.name;
}

/** The entries with `entry` in place of the one of its name (added when there is none), in git's order. */
export function withEntry(entries: readonly TreeEntry[], entry: TreeEntry): TreeEntry[] {
  const rest = entries.filter((e) => !e.name.equals(entry.name));
  rest.push(entry);
  return rest.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
}

export function findEntry(entries: readonly TreeEntry[], name: string): TreeEntry | undefined {
  const bytes = Buffer.from(name);
  return entries.find((entry) => entry.name.equals(bytes));
}
