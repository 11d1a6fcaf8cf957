import { entriesEnd, type PlainIndex } from "./plain-index.js";

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
  const { bytes } = plain;
  let at = entriesEnd(plain);
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
  // Folders still to read below each open one: [path, subfolders left], innermost last.
  const open: { path: string; left: number }[] = [];
  let at = 0;
  while (at < body.length) {
    const nul = body.indexOf(0, at);
    if (nul < 0) return false;
    const top = open.length === 0;
    if (top !== (nul === at) || (top && at > 0)) return false;
    const parent = open[open.length - 1];
    const path = parent ? `${parent.path}${body.toString("latin1", at, nul)}/` : "";
    at = nul + 1;
    const count = decimal(body, at, 0x20);
    if (!count) return false;
    const children = decimal(body, count.next, 0x0a);
    if (!children || children.value < 0) return false;
    at = children.next;
    if (count.value >= 0) {
      if (at + 20 > body.length) return false;
      trees.set(path, { count: count.value, id: body.subarray(at, at + 20) });
      at += 20;
    }
    if (parent) parent.left -= 1;
    open.push({ path, left: children.value });
    while (open.length > 0 && (open[open.length - 1] as { left: number }).left === 0) open.pop();
    if (open.length === 0) return at === body.length;
  }
  return false;
}

/** An ASCII decimal number (a leading "-" allowed) ending at `stop`, and where the bytes after it start. */
function decimal(body: Buffer, at: number, stop: number): { value: number; next: number } | undefined {
  const negative = body[at] === 0x2d;
  let i = negative ? at + 1 : at;
  let value = 0;
  const first = i;
  for (; i < body.length && body[i] !== stop; i++) {
    const digit = (body[i] as number) - 0x30;
    if (digit < 0 || digit > 9 || i - first > 9) return undefined;
    value = value * 10 + digit;
  }
  if (i === first || i >= body.length) return undefined;
  return { value: negative ? -value : value, next: i + 1 };
}

/** One folder of a `TREE` extension as it is on disk: -1 entries for an invalid one, which has no id. */
interface TreeNode {
  name: Buffer;
  count: number;
  id?: Buffer;
  down: TreeNode[];
}

/**
 * The `TREE` extension's body after git's `cache_tree_invalidate_path` of each path (cache-tree.c): every
 * folder on the path made invalid (-1 entries, no id) and a subtree named like the path's last component
 * removed (a file where a folder was); the other folders kept as they are, in their order. Undefined when
 * the body does not parse.
 */
export function invalidatedCacheTree(body: Buffer, paths: readonly string[]): Buffer | undefined {
  const cursor = { at: 0 };
  const root = readNode(body, cursor);
  if (!root || cursor.at !== body.length || root.name.length !== 0) return undefined;
  for (const path of paths) invalidate(root, Buffer.from(path));
  const out: Buffer[] = [];
  writeNode(root, out);
  return Buffer.concat(out);
}

function readNode(body: Buffer, cursor: { at: number }, depth = 0): TreeNode | undefined {
  const nul = body.indexOf(0, cursor.at);
  if (nul < 0 || depth > 4096) return undefined;
  const name = body.subarray(cursor.at, nul);
  const count = decimal(body, nul + 1, 0x20);
  const children = count && decimal(body, count.next, 0x0a);
  if (!count || !children || children.value < 0) return undefined;
  cursor.at = children.next;
  const node: TreeNode = { name, count: count.value, down: [] };
  if (count.value >= 0) {
    if (cursor.at + 20 > body.length) return undefined;
    node.id = body.subarray(cursor.at, cursor.at + 20);
    cursor.at += 20;
  }
  for (let i = 0; i < children.value; i++) {
    const child = readNode(body, cursor, depth + 1);
    if (!child) return undefined;
    node.down.push(child);
  }
  return node;
}

function invalidate(node: TreeNode, path: Buffer): void {
  node.count = -1;
  node.id = undefined;
  const slash = path.indexOf(0x2f);
  const name = slash < 0 ? path : path.subarray(0, slash);
  const at = node.down.findIndex((child) => child.name.equals(name));
  if (at < 0) return;
  if (slash < 0) node.down.splice(at, 1);
  else invalidate(node.down[at] as TreeNode, path.subarray(slash + 1));
}

function writeNode(node: TreeNode, out: Buffer[]): void {
  out.push(node.name, Buffer.from(`\0${node.count} ${node.down.length}\n`, "latin1"));
  if (node.count >= 0 && node.id) out.push(node.id);
  for (const child of node.down) writeNode(child, out);
}
