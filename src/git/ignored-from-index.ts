import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { FolderWalk } from "./folder-walk.js";
import type { GitObjects, TreeEntry } from "./git-objects.js";

/**
 * Paths of the private index (from the top) in the folders asked about: its files there, and its folders
 * there that hold one ("a/b/").
 */
export interface IndexedPaths {
  files: ReadonlySet<string>;
  folders: ReadonlySet<string>;
}

/**
 * The entries directly in each of `folders` (from the top, each "" or ending in "/") of a tree this run's
 * judge wrote from its private index (write-tree: the same paths), read from its tree objects: a tree
 * object for each folder on the way, where reading the whole private index costs 6 MB at 50,000 files.
 * Undefined when an object cannot be read (git is asked then).
 */
export function indexedIn(
  objects: GitObjects,
  tree: string,
  folders: readonly string[],
): IndexedPaths | undefined {
  const files = new Set<string>();
  const subfolders = new Set<string>();
  for (const folder of folders) {
    const entries = entriesAt(objects, tree, folder);
    if (!entries) return undefined;
    for (const entry of entries) {
      const path = `${folder}${entry.name.toString("utf8")}`;
      if (entry.mode === "40000") subfolders.add(`${path}/`);
      else files.add(path);
    }
  }
  return { files, folders: subfolders };
}

/** The tree's entries in `folder` (none where it has no such folder); undefined when a tree cannot be read. */
function entriesAt(objects: GitObjects, tree: string, folder: string): TreeEntry[] | undefined {
  let entries = objects.readTree(tree);
  for (const name of folder.split("/").slice(0, -1)) {
    if (!entries) return undefined;
    const below = entries.find((entry) => entry.mode === "40000" && entry.name.toString("utf8") === name);
    if (!below) return [];
    entries = objects.readTree(below.id.toString("hex"));
  }
  return entries;
}

/**
 * Which of the changed folders (outermost, from changedFolders) git must list again, and the ignored paths
 * kept for the others without asking it. `indexed` holds the private index's paths in every folder whose
 * stat key changed. A path in the private index is not an untracked ignored file that
 * the commit would leave out: the judge's `add -A` put there every file no rule ignores, and every path in it
 * is in the judged tree. So in a folder whose entries changed, an entry that is in the index, or that the
 * last listing had already, needs no question; anything else (a new file or folder outside the index, a
 * listed wholly ignored folder, a nested `.git`) sends its changed folder to git as before.
 */
export function answerFromIndex(
  top: string,
  changed: readonly string[],
  before: FolderWalk,
  walk: FolderWalk,
  listed: ReadonlySet<string>,
  indexed: IndexedPaths,
): { ask: string[]; kept: string[] } {
  const ask: string[] = [];
  const kept: string[] = [];
  for (const outer of changed) {
    if (outer === "" || !answerable(top, outer, before, walk, listed, indexed)) {
      ask.push(outer);
      continue;
    }
    // What was listed there and is still there (a removed ignored file changed its folder).
    for (const path of listed)
      if (path.startsWith(outer) && lstatSync(join(top, path), { throwIfNoEntry: false })) kept.push(path);
  }
  return { ask, kept };
}

function answerable(
  top: string,
  outer: string,
  before: FolderWalk,
  walk: FolderWalk,
  listed: ReadonlySet<string>,
  indexed: IndexedPaths,
): boolean {
  for (const [rel, folder] of walk.folders) {
    if (!rel.startsWith(outer) || before.folders.get(rel)?.key === folder.key) continue;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(top, rel), { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      if (entry.name === ".git" || entry.name.includes("\uFFFD")) return false;
      const path = `${rel}${entry.name}`;
      if (entry.isDirectory()) {
        // A folder with indexed files is walked and looked at on its own; any other could hold ignored files.
        if (!indexed.folders.has(`${path}/`)) return false;
      } else if (!indexed.files.has(path) && !listed.has(path)) return false;
    }
  }
  return true;
}
