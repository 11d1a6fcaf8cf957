import { copyFileSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "./exec.js";
import { cacheTreeAtEnd, firstHalfFolders, mergeHalves } from "./index-halves.js";

/** Below this many entries one `add` costs less than two and a merge. */
export const MIN_SPLIT_ENTRIES = 4000;
/** Whether an index file holds about MIN_SPLIT_ENTRIES entries or more (one of a 40-byte path takes about 104 bytes). */
export function largeIndexFile(path: string | undefined): boolean {
  return (
    path !== undefined && (statSync(path, { throwIfNoEntry: false })?.size ?? 0) >= MIN_SPLIT_ENTRIES * 100
  );
}

/** What `git add` says of a pathspec naming an ignored path; the rest is added (the judge tolerates it). */
const IGNORED_NOTE = "are ignored by one of your .gitignore files";

export interface TwoCoreAdd {
  /** The working tree's top level, where git runs. */
  top: string;
  /** The private git directory: its `index` is where the judged entries end up. */
  dir: string;
  /** The private git's environment (GIT_INDEX_FILE is its `index`). */
  env: Record<string, string>;
  /** The tree the index is read from: HEAD's without `.gantry` (head-without-gantry.ts). */
  base: string;
  /** The pathspec that keeps `.gantry/` out. */
  exclusion: string;
  /** Fewer entries than this: one add (default MIN_SPLIT_ENTRIES; the tests split small trees). */
  minEntries?: number;
  /** Run while the two adds work. */
  meanwhile?: () => void;
}

/**
 * The run's first judge without a stat cache hashes every file (no stat data to trust): `add -A` on one core.
 * Here the index is read from `base`, its entries split in two by folders (from the cache-tree read-tree
 * primed), and each half added by its own `git add -A` into its own copy of that index at the same time (git's
 * own hashing, sha1dc, on both cores); the two indexes are then merged as bytes, each path from the half whose
 * pathspecs cover it. The result holds the entries one `add -A` would (test/git/add-on-two-cores.test.ts).
 * "split": the private index holds the judged entries; "same": they are `base`'s (its tree is the judged tree);
 * "read": it holds `base`'s entries without stat data (too few to split, or halves this does not merge: the
 * caller adds everything).
 */
export async function addOnTwoCores(work: TwoCoreAdd): Promise<"split" | "same" | "read"> {
  const index = join(work.dir, "index");
  await runGit(work.top, ["read-tree", "-m", "-i", work.base], work.env);
  const tree = cacheTreeAtEnd(index);
  const folders = tree ? firstHalfFolders(tree, work.minEntries ?? MIN_SPLIT_ENTRIES) : [];
  if (folders.length === 0) return "read";
  const other = join(work.dir, "index-half");
  copyFileSync(index, other);
  const add = (args: string[], env: Record<string, string>) =>
    runGit(work.top, ["add", "-A", "--", ...args], env).catch((error: unknown) => {
      if (!String((error as Error).message).includes(IGNORED_NOTE)) throw error;
    });
  try {
    const adding = Promise.all([
      add(
        folders.map((folder) => `:(top,literal)${folder}`),
        { ...work.env, GIT_INDEX_FILE: other },
      ),
      add(
        [":(top)", work.exclusion, ...folders.map((folder) => `:(exclude,top,literal)${folder}`)],
        work.env,
      ),
    ]);
    work.meanwhile?.();
    await adding;
    const merged = mergeHalves(readFileSync(other), readFileSync(index), folders, tree);
    if (!merged) {
      // The first half's work is lost: the caller adds the whole tree to the second half's index.
      return "read";
    }
    const temp = join(work.dir, "index-merged");
    writeFileSync(temp, merged.bytes);
    // No later than either half's file: git's racy-entry rule (an entry not older than the index is not
    // trusted) stays at least as strict as for each half.
    const seconds = Math.floor(Math.min(statSync(other).mtimeMs, statSync(index).mtimeMs)) / 1000;
    utimesSync(temp, seconds, seconds);
    renameSync(temp, index);
    return merged.same ? "same" : "split";
  } finally {
    rmSync(other, { force: true });
  }
}
