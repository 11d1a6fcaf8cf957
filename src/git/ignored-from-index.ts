import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { FolderWalk } from "./folder-walk.js";

/** The paths of the private index (from the top), and every folder that holds one ("a/", "a/b/"). */
export interface IndexedPaths {
  files: ReadonlySet<string>;
  folders: ReadonlySet<string>;
}

export function indexedPaths(paths: Iterable<string>): IndexedPaths {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const path of paths) {
    files.add(path);
    for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) folders.add(path.slice(0, i + 1));
  }
  return { files, folders };
}

/**
 * Which of the changed folders (outermost, from changedFolders) git must list again, and the ignored paths
 * kept for the others without asking it. A path in the private index is not an untracked ignored file that
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
