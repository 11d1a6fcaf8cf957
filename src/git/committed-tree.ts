import { existsSync, lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { EMPTY_TREE, findEntry, GitObjects, objectId, type TreeEntry, withEntry } from "./git-objects.js";
import { SYSTEM_ATTRIBUTES } from "./stat-check.js";

export interface CommittedTreeInput {
  /** The repository's object directory (sha1 only: the caller asks git for any other format). */
  objects: string;
  /** The working tree's top level, and gantry's path from it ("" or "packages/x/"). */
  top: string;
  prefix: string;
  judgedTree: string;
  /** The judged commit (HEAD), never unborn. */
  head: string;
  /**
   * Contents gantry is about to write over a tracked prd.json (by absolute path), taken instead of the file's
   * (commit-prepare.ts: the tree built before the write; the commit builds it again from the disk and compares).
   * gantry writes a new file (mode 0644 less the umask): its mode is 100644.
   */
  contents?: ReadonlyMap<string, Buffer>;
}

const GANTRY = ".gantry";
const FEATURES = "features";
const PRD = "prd.json";
const TREE_MODE = "40000";
const ATTRIBUTES = ".gitattributes";

/**
 * The tree the commit's script builds (judged tree + HEAD's .gantry/ + the features' prd.json as on disk),
 * built in node (objects read loose or from packs, written loose), three git programs fewer. Undefined whenever it cannot be sure to build
 * exactly what `git add -A -- .gantry/features/*\/prd.json` would: an object it cannot read (an alternate), a prd.json
 * added or removed (an ignore rule decides whether git would add it), anything but plain folders and
 * files on the way, or an attributes file that could convert the content. The caller then runs git.
 */
export function buildCommittedTree(input: CommittedTreeInput): { tree: string; gantry: string } | undefined {
  const objects = new GitObjects(input.objects);
  const commit = objects.read(input.head, "commit");
  const headTree = commit && /^tree ([0-9a-f]{40})\n/.exec(commit.toString("latin1", 0, 46))?.[1];
  if (!headTree) return undefined;
  const segments = input.prefix.split("/").filter(Boolean);
  const gantryEntry = entryAt(objects, headTree, [...segments, GANTRY]);
  if (gantryEntry?.mode !== TREE_MODE) return undefined;
  const gantryId = gantryWithPrdFiles(objects, input, gantryEntry.id.toString("hex"));
  if (!gantryId) return undefined;
  const tree = withGantry(objects, input.judgedTree, segments, Buffer.from(gantryId, "hex"));
  return tree ? { tree, gantry: gantryId } : undefined;
}

/** The entry at `path` below `tree`, when every tree on the way can be read. */
function entryAt(objects: GitObjects, tree: string, path: string[]): TreeEntry | undefined {
  let entries = objects.readTree(tree);
  for (const [i, name] of path.entries()) {
    const entry = entries && findEntry(entries, name);
    if (!entry || i === path.length - 1) return entry;
    if (entry.mode !== TREE_MODE) return undefined;
    entries = objects.readTree(entry.id.toString("hex"));
  }
  return undefined;
}

/** HEAD's .gantry/ tree with each feature's prd.json as on disk now; undefined when git must decide. */
function gantryWithPrdFiles(
  objects: GitObjects,
  input: CommittedTreeInput,
  gantryTree: string,
): string | undefined {
  const gantryEntries = objects.readTree(gantryTree);
  const featuresEntry = gantryEntries && findEntry(gantryEntries, FEATURES);
  const gantryPath = join(input.top, input.prefix, GANTRY);
  const featuresPath = join(gantryPath, FEATURES);
  if (!gantryEntries || !isFolder(gantryPath)) return undefined;
  // No prd.json tracked: one on disk now would be a new file, which an ignore rule may keep out.
  if (!featuresEntry) return isFolder(featuresPath) ? undefined : gantryTree;
  if (featuresEntry.mode !== TREE_MODE || !isFolder(featuresPath) || attributesOnTheWay(input))
    return undefined;
  let features = objects.readTree(featuresEntry.id.toString("hex"));
  // git reads an attributes file from the index where the disk has none: HEAD's count as well.
  if (!features || findEntry(gantryEntries, ATTRIBUTES) || findEntry(features, ATTRIBUTES)) return undefined;
  const onDisk = new Set<string>();
  for (const name of readdirSync(featuresPath)) if (exists(join(featuresPath, name, PRD))) onDisk.add(name);
  let changed = false;
  for (const feature of features) {
    const name = feature.name.toString("utf8");
    const entries = feature.mode === TREE_MODE ? objects.readTree(feature.id.toString("hex")) : [];
    if (!entries) return undefined;
    const tracked = findEntry(entries, PRD);
    if (!tracked) continue;
    // A prd.json removed (or a feature folder now a link): git add -A would record the deletion.
    if (!onDisk.delete(name)) return undefined;
    const folder = join(featuresPath, name);
    if (findEntry(entries, ATTRIBUTES) || existsSync(join(folder, ATTRIBUTES))) return undefined;
    const file = join(folder, PRD);
    const stat = lstat(file);
    if (!isFolder(folder) || !stat?.isFile()) return undefined;
    const coming = input.contents?.get(file);
    const content = coming ?? readFileSync(file);
    const mode = coming === undefined && stat.mode & 0o100 ? "100755" : "100644";
    const id = objectId("blob", content);
    if (tracked.mode === mode && tracked.id.toString("hex") === id) continue;
    objects.write("blob", content);
    const folderTree = objects.writeTree(
      withEntry(entries, { mode, name: tracked.name, id: Buffer.from(id, "hex") }),
    );
    features = withEntry(features, {
      mode: TREE_MODE,
      name: feature.name,
      id: Buffer.from(folderTree, "hex"),
    });
    changed = true;
  }
  // A new prd.json: whether git adds it depends on the ignore rules.
  if (onDisk.size > 0) return undefined;
  if (!changed) return gantryTree;
  const featuresTree = objects.writeTree(features);
  return objects.writeTree(
    withEntry(gantryEntries, {
      mode: TREE_MODE,
      name: featuresEntry.name,
      id: Buffer.from(featuresTree, "hex"),
    }),
  );
}

/** The judged tree with `.gantry` at the prefix: the trees on the way written again, the rest shared. */
function withGantry(
  objects: GitObjects,
  tree: string,
  segments: string[],
  gantry: Buffer,
): string | undefined {
  const entries = objects.readTree(tree);
  if (!entries) return undefined;
  const [first, ...rest] = segments;
  if (first === undefined) {
    // The judge leaves .gantry out: one in the judged tree is not something to overwrite silently.
    if (findEntry(entries, GANTRY)) return undefined;
    return objects.writeTree(withEntry(entries, { mode: TREE_MODE, name: Buffer.from(GANTRY), id: gantry }));
  }
  const below = findEntry(entries, first);
  if (below && below.mode !== TREE_MODE) return undefined;
  const child = withGantry(objects, below ? below.id.toString("hex") : EMPTY_TREE, rest, gantry);
  if (!child) return undefined;
  return objects.writeTree(
    withEntry(entries, { mode: TREE_MODE, name: Buffer.from(first), id: Buffer.from(child, "hex") }),
  );
}

/** Attributes (eol, ident, an encoding) could make git store other bytes than the file's: git decides then. */
function attributesOnTheWay(input: CommittedTreeInput): boolean {
  const folders = [input.top];
  for (const segment of [...input.prefix.split("/").filter(Boolean), GANTRY, FEATURES])
    folders.push(join(folders.at(-1) ?? input.top, segment));
  return (
    existsSync(SYSTEM_ATTRIBUTES) || folders.some((folder) => existsSync(join(folder, ".gitattributes")))
  );
}

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  return lstat(path) !== undefined;
}

function isFolder(path: string): boolean {
  return lstat(path)?.isDirectory() === true;
}
