import { type Dirent, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { runGit } from "./exec.js";
import {
  changedFolders,
  type FolderWalk,
  keysDiffering,
  type UnchangedFolders,
  walkFolders,
} from "./folder-walk.js";
import { answerFromIndex, type IndexedPaths } from "./ignored-from-index.js";
import type { CheckedFolders } from "./untracked-cache.js";

export type { CheckedFolders };

/** Extensions of files that hold code: an implementation hidden in an ignored file is one of these. */
const SOURCE = new Set(
  "js mjs cjs jsx ts mts cts tsx py go rs java kt kts scala rb php c h cc cpp hpp cs swift m sh vue svelte"
    .split(" ")
    .map((ext) => `.${ext}`),
);
/** A new ignored folder larger than this is taken for dependencies or caches and not looked into. */
const MAX_FOLDER_ENTRIES = 500;

/**
 * Untracked, ignored paths of the working tree (.gantry/ aside); a wholly ignored folder is one entry `dir/`.
 * `folders` (from the top, each ending in "/"): only those.
 */
export async function ignoredPaths(cwd: string, prefix: string, folders?: string[]): Promise<Set<string>> {
  const out = await runGit(
    cwd,
    [
      "ls-files",
      "--others",
      "--ignored",
      "--exclude-standard",
      "--directory",
      "-z",
      "--",
      ...(folders ? folders.map((folder) => `:(top,literal)${folder}`) : [":(top)"]),
      `:(exclude,top)${prefix}.gantry`,
    ],
    { GIT_OPTIONAL_LOCKS: "0" },
  );
  return new Set(out.split("\0").filter(Boolean));
}

/** A listing of the ignored paths with the folders it was made from, to list again only where they changed. */
export interface IgnoredListing {
  paths: Set<string>;
  /** Undefined when the tree was too large to walk, or gantry runs below the top level. */
  walk?: FolderWalk;
  /** Stat keys of the ignore rules outside the tree (excludes files, config) when it was made. */
  sources: string;
}

/**
 * The whole listing, with the folders as they were just before it (walked first: a folder that changes
 * while git lists is seen as changed next time). `skip`: folders known to be wholly ignored already.
 */
export async function listIgnored(
  cwd: string,
  prefix: string,
  top: string,
  sources: string,
  skip: ReadonlySet<string> = new Set([".gantry/"]),
): Promise<IgnoredListing> {
  const walk = prefix === "" ? walkFolders(top, skip) : undefined;
  const paths = await ignoredPaths(cwd, prefix);
  return { paths, sources, ...(walk ? { walk: without(walk, skipped(paths), skip) } : {}) };
}

/**
 * The listing as a whole listing would give it now, from `before`: git lists again only the folders whose
 * entries changed since (a new file, folder or rename changes its folder's mtime and ctime); unchanged folders
 * keep their entries. Any change to the ignore rules (a `.gitignore`, an excludes file, the config) lists
 * the whole tree, as does a change at the top level. `indexed`: the private index's paths in the folders
 * given, which answer for changed folders holding nothing new outside it (ignored-from-index.ts).
 */
export async function relistIgnored(
  cwd: string,
  prefix: string,
  top: string,
  before: IgnoredListing,
  sources: string,
  indexed?: (folders: readonly string[]) => IndexedPaths | undefined,
  checked?: () => Promise<CheckedFolders | undefined>,
): Promise<IgnoredListing> {
  if (!before.walk || prefix !== "" || before.sources !== sources)
    return listIgnored(cwd, prefix, top, sources);
  const skip = skipped(before.paths);
  const walk = walkFolders(top, skip, before.walk, unchangedSince(before.walk.at, await checked?.()));
  const changed = walk && changedFolders(before.walk, walk);
  if (!walk || !changed || changed.includes("")) return listIgnored(cwd, prefix, top, sources);
  const paths = new Set(
    [...before.paths].filter((path) => !changed.some((folder) => path.startsWith(folder))),
  );
  const index = changed.length > 0 ? indexed?.(keysDiffering(before.walk, walk)) : undefined;
  const { ask, kept } = index
    ? answerFromIndex(top, changed, before.walk, walk, before.paths, index)
    : { ask: changed, kept: [] };
  for (const path of kept) paths.add(path);
  if (ask.length > 0) for (const path of await ignoredPaths(cwd, prefix, ask)) paths.add(path);
  return { paths, sources, walk: without(walk, skipped(paths), skip) };
}

/**
 * Which folders have not changed since `since`, from a status that started after it: git read a folder again
 * (and stored its stat data) unless its ctime's seconds were the stored ones, so a stored ctime two seconds
 * before `since` says the folder's last change was before `since` (the kernel's clock, coarse by a tick, is
 * behind by less than the margin). Anything else is looked at as before.
 */
export function unchangedSince(
  since: number,
  checked: CheckedFolders | undefined,
): UnchangedFolders | undefined {
  if (!checked || checked.started <= since) return undefined;
  const before = Math.floor(since / 1000) - 2;
  const { folders } = checked;
  return {
    at: checked.started,
    unchanged: (rel) => {
      const ctime = folders.get(rel);
      return ctime !== undefined && ctime <= before;
    },
  };
}

/** Folders the walk does not enter: gantry's own and the wholly ignored ones. */
function skipped(paths: ReadonlySet<string>): Set<string> {
  const skip = new Set([".gantry/"]);
  for (const path of paths) if (path.endsWith("/")) skip.add(path);
  return skip;
}

/**
 * The walk without folders at or under `skip` (a folder that became wholly ignored is not walked again);
 * those in `walked`, the folders the walk already did not enter, have nothing under them in it.
 */
function without(walk: FolderWalk, skip: ReadonlySet<string>, walked: ReadonlySet<string>): FolderWalk {
  const fresh = [...skip].filter((folder) => !walked.has(folder));
  if (fresh.length === 0) return walk;
  const inside = (rel: string) => fresh.some((folder) => rel.startsWith(folder));
  return {
    folders: new Map([...walk.folders].filter(([rel]) => !inside(rel))),
    ignoreFiles: new Map([...walk.ignoreFiles].filter(([rel]) => !inside(rel))),
    at: walk.at,
  };
}

/**
 * Source files among the ignored paths that appeared since `before`: code the tests could use that a
 * commit would not carry. Paths are relative to the repository's top level (`top`).
 */
export function newIgnoredSources(top: string, before: Set<string>, after: Set<string>): string[] {
  const found: string[] = [];
  for (const path of after) {
    if (before.has(path)) continue;
    if (!path.endsWith("/")) {
      if (SOURCE.has(extname(path))) found.push(path);
      continue;
    }
    const inside = sourcesIn(join(top, path));
    found.push(...inside.map((file) => `${path}${file}`));
  }
  return found.sort();
}

/** The source files in a folder, or none when it holds more than MAX_FOLDER_ENTRIES entries (walk stops there). */
function sourcesIn(dir: string): string[] {
  const sources: string[] = [];
  const pending = [""];
  let seen = 0;
  while (pending.length > 0) {
    const sub = pending.pop() ?? "";
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, sub), { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > MAX_FOLDER_ENTRIES) return [];
    for (const entry of entries) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) pending.push(rel);
      else if (SOURCE.has(extname(entry.name))) sources.push(rel);
    }
  }
  return sources;
}
