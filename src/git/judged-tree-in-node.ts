import { type CachedTree, readCacheTree } from "./cache-tree.js";
import { EMPTY_TREE, GitObjects, sortKey, type TreeEntry } from "./git-objects.js";
import { ID, nameOf, type PlainIndex, STAT, scanPlainIndex } from "./plain-index.js";
import { type ReadBuffer, readReusing } from "./reused-read.js";

const TREE = "40000";
/** Past this many folders to build from the entries, git's write-tree writes the tree (and its cache-tree). */
const MAX_BUILT_FOLDERS = 256;
/** git's modes as trees write them, by the index's mode; anything else is left to git. */
const TREE_MODES = new Map<number, string>([
  [0o100644, "100644"],
  [0o100755, "100755"],
  [0o120000, "120000"],
  [0o160000, "160000"],
]);
const S_IFMT = 0o170000;
const ZERO_ID = "0".repeat(40);

/**
 * The tree `git write-tree` writes from the private index at `indexPath`, built and written (loose) in node;
 * undefined whenever git must do it: an index scanPlainIndex does not read whole (version 4, a conflict, a
 * flagged or intent-to-add entry, an extension other than the droppable ones, a bad checksum), a mode a
 * tree does not hold, a name a tree cannot hold, a cache-tree that does not fit the entries. A folder the
 * index's cache-tree holds as valid (one no change reached since git last wrote or primed it) is taken from
 * there, as git's write-tree takes it: at 50,000 entries only the folders on the changed paths are built.
 * `keep`: the buffer the index is read into (one of the caller's, kept for the run); `seen.plain` is then the
 * index as read, whose entries are exactly the tree returned (the commit takes them from there: no second read).
 */
export function writeTreeFromIndex(
  indexPath: string,
  objectsDir: string,
  keep: ReadBuffer = scratch,
  seen?: { plain?: PlainIndex },
): string | undefined {
  try {
    const plain = scanPlainIndex(readReusing(indexPath, keep));
    if (seen) seen.plain = plain;
    return plain && writeTreeFromPlain(plain, objectsDir);
  } catch {
    return undefined;
  }
}

/** writeTreeFromIndex's tree from an index already read (add-in-node.ts's, as it wrote it). */
export function writeTreeFromPlain(plain: PlainIndex, objectsDir: string): string | undefined {
  try {
    const cached = readCacheTree(plain);
    if (!cached) return undefined;
    const { bytes, count } = plain;
    const objects = new GitObjects(objectsDir);
    // A cached tree is reused only while its object is there (a gc may have pruned a tree no commit holds).
    const usable = (tree: CachedTree | undefined) =>
      tree !== undefined && tree.count > 0 && objects.has(tree.id.toString("hex"));
    const whole = cached.get("");
    if (whole?.count === count && usable(whole)) return whole.id.toString("hex");
    let next = 0;
    let built = 0;
    /** The tree of the entries from `next` on whose paths start with `base` (bytes), in index order. */
    const build = (base: Buffer): string | undefined => {
      // A cache-tree that names few folders (a run's first judge hashed every file): git's write-tree,
      // which also writes it back for the next judge.
      if (++built > MAX_BUILT_FOLDERS) return undefined;
      const tree: TreeEntry[] = [];
      while (next < count) {
        const path = nameOf(plain, next);
        if (!startsWith(path, base)) break;
        const rest = path.subarray(base.length);
        const slash = rest.indexOf(0x2f);
        if (rest.length === 0 || slash === 0 || slash === rest.length - 1) return undefined;
        if (slash < 0) {
          const mode = TREE_MODES.get(bytes.readUInt32BE((plain.at[next] as number) + 24));
          if (!mode) return undefined;
          tree.push({
            mode,
            name: rest,
            id: bytes.subarray((plain.at[next] as number) + STAT, (plain.at[next] as number) + STAT + ID),
          });
          next += 1;
          continue;
        }
        const name = rest.subarray(0, slash);
        const folder = path.subarray(0, base.length + slash + 1);
        const known = cached.get(folder.toString("latin1"));
        // A valid cached folder covers exactly its next `count` entries: the last of them in it, the one after not.
        if (known && known.count > 0 && spans(known.count, folder) && usable(known)) {
          tree.push({ mode: TREE, name, id: known.id });
          next += known.count;
          continue;
        }
        const id = build(folder);
        if (!id) return undefined;
        tree.push({ mode: TREE, name, id: Buffer.from(id, "hex") });
      }
      const sorted = tree.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
      for (let i = 1; i < sorted.length; i++)
        if ((sorted[i - 1] as TreeEntry).name.equals((sorted[i] as TreeEntry).name)) return undefined;
      return objects.writeTree(sorted);
    };
    const spans = (covered: number, folder: Buffer) =>
      next + covered <= count &&
      startsWith(nameOf(plain, next + covered - 1), folder) &&
      (next + covered === count || !startsWith(nameOf(plain, next + covered), folder));
    const root = build(Buffer.alloc(0));
    return root !== undefined && next === count ? root : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the private index is read each judge: one buffer kept for the run. Only writeTreeFromIndex uses it,
 * synchronously, and keeps no view of it (the tree objects it writes are copies).
 */
const scratch: ReadBuffer = {};

/**
 * What `git diff-tree -r -z --no-renames <commit> <tree> -- :(top) :(exclude,top)<excluded>` prints, from
 * the objects read in node (loose or packed, each checked against its id); undefined when one cannot be
 * read (the caller asks git). `commit` may be the empty tree's id (an unborn HEAD).
 */
export function rawTreeDiff(
  objectsDir: string,
  commit: string,
  tree: string,
  excluded: string,
): string | undefined {
  try {
    const objects = new GitObjects(objectsDir);
    const from = commit === EMPTY_TREE ? EMPTY_TREE : treeOfCommit(objects, commit);
    if (!from) return undefined;
    const out: string[] = [];
    return diffTrees(objects, from, tree, "", excluded, out) ? out.join("") : undefined;
  } catch {
    return undefined;
  }
}

function treeOfCommit(objects: GitObjects, commit: string): string | undefined {
  const body = objects.read(commit, "commit");
  return body ? /^tree ([0-9a-f]{40})\n/.exec(body.toString("latin1", 0, 46))?.[1] : undefined;
}

/** Both trees walked in git's order, changed subtrees entered where they stand, as diff-tree -r does. */
function diffTrees(
  objects: GitObjects,
  from: string | undefined,
  to: string | undefined,
  base: string,
  excluded: string,
  out: string[],
): boolean {
  const a = from ? objects.readTree(from) : [];
  const b = to ? objects.readTree(to) : [];
  if (!a || !b) return false;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const old = a[i];
    const now = b[j];
    const order = !old ? 1 : !now ? -1 : Buffer.compare(sortKey(old), sortKey(now));
    const one = order <= 0 ? old : undefined;
    const two = order >= 0 ? now : undefined;
    if (one) i += 1;
    if (two) j += 1;
    const name = ((one ?? two) as TreeEntry).name.toString("utf8");
    const path = `${base}${name}`;
    if (path === excluded) continue;
    if (one && two && one.mode === two.mode && one.id.equals(two.id)) continue;
    if ((one?.mode ?? two?.mode) === TREE) {
      const ok = diffTrees(objects, hex(one), hex(two), `${path}/`, excluded, out);
      if (!ok) return false;
      continue;
    }
    const oldMode = one ? Number.parseInt(one.mode, 8) : 0;
    const newMode = two ? Number.parseInt(two.mode, 8) : 0;
    const status = !one ? "A" : !two ? "D" : (oldMode ^ newMode) & S_IFMT ? "T" : "M";
    const ids = `${hex(one) ?? ZERO_ID} ${hex(two) ?? ZERO_ID}`;
    out.push(`:${octal(oldMode)} ${octal(newMode)} ${ids} ${status}\0${path}\0`);
  }
  return true;
}

const hex = (entry: TreeEntry | undefined) => entry?.id.toString("hex");
const octal = (mode: number) => mode.toString(8).padStart(6, "0");

function startsWith(path: Buffer, base: Buffer): boolean {
  return path.length > base.length && path.subarray(0, base.length).equals(base);
}
