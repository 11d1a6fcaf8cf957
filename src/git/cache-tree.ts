import { entrySize, HEADER, NAME, type PlainIndex } from "./plain-index.js";

/** A folder's tree as the index's cache-tree holds it: how many index entries it covers and its tree id. */
export interface CachedTree {
  count: number;
  id: Buffer;
}

/**
 * The valid folders of a plain sha1 index's cache-tree (the `TREE` extension: what `git write-tree` wrote
 * or `read-tree` primed, every folder on a path git changed since marked invalid), by path as latin1 bytes
 * from the top ("" for the top, else ending in "/"); an empty map when there is none, undefined when it
 * does not parse.
 */
export function readCacheTree(plain: PlainIndex): Map<string, CachedTree> | undefined {
  const { bytes, count } = plain;
  const last = count - 1;
  let at =
    count > 0
      ? (plain.at[last] as number) +
        entrySize((plain.nameEnd[last] as number) - (plain.at[last] as number) - NAME)
      : HEADER;
  const end = bytes.length - 20;
  const trees = new Map<string, CachedTree>();
  while (at + 8 <= end) {
    const size = bytes.readUInt32BE(at + 4);
    if (bytes.toString("latin1", at, at + 4) === "TREE")
      return parseTrees(bytes.subarray(at + 8, at + 8 + size), trees) ? trees : undefined;
    at += 8 + size;
  }
  return trees;
}

/** The extension's body: depth first, each folder's name, entry count (-1: invalid), subfolder count, then its id. */
function parseTrees(body: Buffer, trees: Map<string, CachedTree>): boolean {
  let at = 0;
  const walk = (base: string, top: boolean): boolean => {
    const nul = body.indexOf(0, at);
    const newline = nul < 0 ? -1 : body.indexOf(0x0a, nul);
    if (nul < 0 || newline < 0) return false;
    const name = body.toString("latin1", at, nul);
    const [entries, subtrees] = body.toString("latin1", nul + 1, newline).split(" ");
    const count = Number(entries);
    const children = Number(subtrees);
    if (!Number.isInteger(count) || !Number.isInteger(children) || children < 0) return false;
    if (top !== (name === "")) return false;
    const path = top ? "" : `${base}${name}/`;
    at = newline + 1;
    if (count >= 0) {
      if (at + 20 > body.length) return false;
      trees.set(path, { count, id: body.subarray(at, at + 20) });
      at += 20;
    }
    for (let i = 0; i < children; i++) if (!walk(path, false)) return false;
    return true;
  };
  return walk("", true) && at === body.length;
}
