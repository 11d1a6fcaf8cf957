import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** One folder as last seen: its stat key, its subfolders, whether it holds a `.gitignore`. */
interface Folder {
  key: string;
  subfolders: string[];
  gitignore: boolean;
}

/**
 * The working tree's folders (path from the top, "" for the top itself, else ending in "/") with what
 * decides which untracked paths are in them: each folder's stat key (a new, removed or renamed entry
 * changes the folder's mtime and ctime, and ctime cannot be set back) and every `.gitignore`'s stat key.
 */
export interface FolderWalk {
  folders: Map<string, Folder>;
  /** `.gitignore` path → stat key. */
  ignoreFiles: Map<string, string>;
  /** When it began (ms since the epoch): each folder's key is its key then, unless it changed since. */
  at: number;
  /**
   * The walk it was made from (`previous`; weak: a run's walks do not hold each other), and its folders whose
   * key is not the one that walk had (new ones too).
   */
  from?: WeakRef<FolderWalk>;
  differs?: string[];
}

/**
 * Folders known not to have changed since `since` (ms since the epoch), whose key and entries a walk takes
 * from the previous walk without a stat (ignored-files.ts, from git's untracked cache).
 */
export interface UnchangedFolders {
  at: number;
  unchanged(rel: string): boolean;
}

/** Past this many folders the walk gives up (undefined): the caller lists the whole tree as before. */
const MAX_FOLDERS = 20_000;

/**
 * Walks the folders under `top` with lstat, never into `.git`, the `skip` folders (`.gantry/`, wholly ignored
 * folders: `dir/`) or a symlink. A folder whose stat key is what `previous` saw is not read again: its
 * entries are the same, so are its subfolders. Undefined when the walk would be too large.
 */
export function walkFolders(
  top: string,
  skip: ReadonlySet<string>,
  previous?: FolderWalk,
  known?: UnchangedFolders,
): FolderWalk | undefined {
  try {
    return walkOrThrow(top, skip, previous, known);
  } catch {
    // A folder or .gitignore it cannot read (permissions, a name that is not UTF-8): git lists the whole tree.
    return undefined;
  }
}

function walkOrThrow(
  top: string,
  skip: ReadonlySet<string>,
  previous?: FolderWalk,
  known?: UnchangedFolders,
): FolderWalk | undefined {
  const differs: string[] = [];
  const walk: FolderWalk = {
    folders: new Map(),
    ignoreFiles: new Map(),
    at: known?.at ?? Date.now(),
    ...(previous ? { from: new WeakRef(previous), differs } : {}),
  };
  const pending = [""];
  while (pending.length > 0) {
    const rel = pending.pop() as string;
    const seen = previous?.folders.get(rel);
    // Unchanged since the previous walk began: its key then is its key now, its entries the same.
    const same = seen && known?.unchanged(rel);
    const key = same ? seen.key : statKey(rel === "" ? top : `${top}/${rel.slice(0, -1)}`);
    if (key === undefined) continue; // gone since its parent was read
    const folder = seen && seen.key === key ? seen : readFolder(top, rel, key);
    if (!folder) continue;
    walk.folders.set(rel, folder);
    if (folder !== seen) differs.push(rel);
    if (walk.folders.size > MAX_FOLDERS) return undefined;
    if (folder.gitignore)
      walk.ignoreFiles.set(`${rel}.gitignore`, statKey(join(top, rel, ".gitignore")) ?? "");
    for (const name of folder.subfolders) {
      const child = `${rel}${name}/`;
      if (!skip.has(child)) pending.push(child);
    }
  }
  return walk;
}

/** The folder's entries; undefined when it is gone; throws when it cannot be read or a name is not UTF-8. */
function readFolder(top: string, rel: string, key: string): Folder | undefined {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(top, rel), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  // Node decodes names as UTF-8; a name that does not decode could not be named back to git or lstat.
  if (entries.some((e) => e.name.includes("\uFFFD"))) throw new Error(`a name in ${rel || "."} is not UTF-8`);
  return {
    key,
    subfolders: entries.filter((e) => e.isDirectory() && e.name !== ".git").map((e) => e.name),
    gitignore: entries.some((e) => e.name === ".gitignore"),
  };
}

/**
 * The folders whose entries may have changed since `before` (changed, new or gone), reduced to the
 * outermost ones; undefined when a `.gitignore` changed, appeared or went (the rules changed: everything
 * may have).
 */
export function changedFolders(before: FolderWalk, after: FolderWalk): string[] | undefined {
  if (!sameEntries(before.ignoreFiles, after.ignoreFiles)) return undefined;
  const changed = new Set(keysDiffering(before, after));
  for (const rel of before.folders.keys()) if (!after.folders.has(rel)) changed.add(rel);
  // A folder inside another changed one is listed with it.
  return [...changed].filter((rel) => !hasChangedAncestor(rel, changed)).sort();
}

/** The folders of `after` whose stat key is not the one `before` had (new ones included). */
export function keysDiffering(before: FolderWalk, after: FolderWalk): string[] {
  // Found by the walk itself when it was made from `before`: no second pass over every folder.
  if (after.differs && after.from?.deref() === before) return [...after.differs];
  const differs: string[] = [];
  for (const [rel, folder] of after.folders)
    if (before.folders.get(rel)?.key !== folder.key) differs.push(rel);
  return differs;
}

function hasChangedAncestor(rel: string, changed: ReadonlySet<string>): boolean {
  if (rel !== "" && changed.has("")) return true;
  for (let i = rel.indexOf("/"); i >= 0 && i < rel.length - 1; i = rel.indexOf("/", i + 1))
    if (changed.has(rel.slice(0, i + 1))) return true;
  return false;
}

function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, key] of a) if (b.get(name) !== key) return false;
  return true;
}

/** Which version of a path this is: inode, size, mtime and ctime in nanoseconds; undefined when absent. */
export function statKey(path: string): string | undefined {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!stat) return undefined;
  return `${stat.mode}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
