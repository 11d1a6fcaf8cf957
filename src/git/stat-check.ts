import { existsSync, lstatSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { changedFolders, type FolderWalk, walkFolders } from "./folder-walk.js";
import { type IndexStat, readIndexFile } from "./index-file.js";

/**
 * Past this size of the private index (about 600 entries) git's `status` costs less than this check: node's
 * lstat and parsing cost 15-30 µs an entry on the 2-core VM, git's 7-12 µs plus 10-20 ms to start
 * (measured at 100, 1,000 and 10,000 files). Below it the check saves the program; above, git is asked.
 */
export const MAX_INDEX_BYTES = 64 * 1024;

/**
 * Whether the private index is small enough for the check to pay. Before the first judge there is none
 * yet: `from` is the index whose size stands for it (the user's: HEAD's entries, which the judge starts
 * from), so that the run's first judge does not walk every folder of a large tree for a check that will
 * not be made (6,000 folders, 0.6 s at 50,000 files). Neither there: not known, so yes.
 */
export function smallIndex(privateDir: string, from?: string): boolean {
  const stat =
    statSync(join(privateDir, "index"), { throwIfNoEntry: false }) ??
    (from === undefined ? undefined : statSync(from, { throwIfNoEntry: false }));
  return stat === undefined || stat.size <= MAX_INDEX_BYTES;
}

/** The folders as they were just before a judge's `add -A`: what the stat check compares with. */
export interface StatBaseline {
  walk: FolderWalk;
  /** Folders not walked: gantry's own and wholly ignored ones (git does not look into those either). */
  skip: ReadonlySet<string>;
}

/**
 * Taken before the judge reads the tree, so that anything that changes a folder while git reads it shows
 * as a change afterwards. Undefined where the check cannot be made (below the top level, a tree too large).
 */
export function statBaseline(
  top: string,
  prefix: string,
  ignored?: ReadonlySet<string>,
  previous?: StatBaseline,
): StatBaseline | undefined {
  if (prefix !== "") return undefined;
  const skip = new Set([".gantry/"]);
  for (const path of ignored ?? []) if (path.endsWith("/")) skip.add(path);
  // A folder whose stat key is what the last baseline saw is not read again (folder-walk.ts).
  const walk = walkFolders(top, skip, previous?.walk);
  return walk && { walk, skip };
}

/**
 * git status's stat pass (judge.ts unchangedSinceJudge) done in node, for the answer "nothing changed since
 * the judge" only: true when every entry of the private index still has the stat data git recorded for it
 * and no folder gained, lost or renamed an entry since the baseline; undefined whenever git must be asked
 * (any difference, a racy entry or folder, `.gitattributes` anywhere, an index this cannot read whole). It
 * never answers "changed": that is git's to say. docs/security.md ("The stat check in node") has the why.
 */
export function unchangedByStat(input: {
  top: string;
  /** The private git directory (its index, its info/attributes). */
  privateDir: string;
  hashBytes: number;
  baseline: StatBaseline;
  env?: NodeJS.ProcessEnv;
}): true | undefined {
  const { top, privateDir, baseline } = input;
  if (!smallIndex(privateDir) || attributesOutsideTree(privateDir, input.env ?? process.env))
    return undefined;
  const index = readIndexFile(join(privateDir, "index"), input.hashBytes, true);
  if (!index || index.mtimeNs === undefined) return undefined;
  const written = index.mtimeNs;
  for (const entry of index.entries) {
    const { path, stat } = entry;
    if (!stat || entry.stage !== 0 || entry.assumeUnchanged || entry.skipWorktree || stat.intentToAdd)
      return undefined;
    // Attributes can convert content on the way in (eol, text): git is asked whenever a tree has any.
    if (path === ".gitattributes" || path.endsWith("/.gitattributes")) return undefined;
    // git's racy-entry rule: an entry not older than the index file may have changed within the same tick.
    if (nanos(stat.mtimeSec, stat.mtimeNsec) >= written) return undefined;
    if (!sameStat(join(top, path), stat)) return undefined;
  }
  const now = walkFolders(top, baseline.skip, baseline.walk);
  const changed = now && changedFolders(baseline.walk, now);
  if (!now || !changed || changed.length > 0) return undefined;
  // The same rule for folders: one changed after the index was written could keep the key the baseline saw.
  for (const folder of now.folders.values())
    if ((ctimeOf(folder.key) ?? written) >= written) return undefined;
  return true;
}

function nanos(sec: number, nsec: number): bigint {
  return BigInt(sec) * 1_000_000_000n + BigInt(nsec);
}

/** Whether the file's lstat matches what git recorded, field by field (git keeps 32 bits of each). */
function sameStat(path: string, recorded: IndexStat): boolean {
  const st = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  if (!st) return false;
  let mode: number;
  if (st.isSymbolicLink()) mode = 0o120000;
  else if (st.isFile()) mode = (st.mode & 0o100n) !== 0n ? 0o100755 : 0o100644;
  else return false;
  const low = (value: bigint) => Number(value & 0xffffffffn);
  return (
    mode === recorded.mode &&
    low(st.mtimeNs / 1_000_000_000n) === recorded.mtimeSec &&
    Number(st.mtimeNs % 1_000_000_000n) === recorded.mtimeNsec &&
    low(st.ctimeNs / 1_000_000_000n) === recorded.ctimeSec &&
    Number(st.ctimeNs % 1_000_000_000n) === recorded.ctimeNsec &&
    low(st.ino) === recorded.ino &&
    low(st.uid) === recorded.uid &&
    low(st.gid) === recorded.gid &&
    low(st.size) === recorded.size
  );
}

/** A folder key's ctime (folder-walk.ts statKey: mode:ino:size:mtimeNs:ctimeNs). */
function ctimeOf(key: string): bigint | undefined {
  const ctime = key.slice(key.lastIndexOf(":") + 1);
  return /^\d+$/.test(ctime) ? BigInt(ctime) : undefined;
}

/**
 * Attributes files the private git reads besides the tree's: its own info/attributes, the user's global one,
 * and the system's (GIT_CONFIG_NOSYSTEM does not turn that one off; only GIT_ATTR_NOSYSTEM would).
 */
export function attributesOutsideTree(privateDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const xdg = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return (
    existsSync(join(privateDir, "info", "attributes")) ||
    existsSync(join(xdg, "git", "attributes")) ||
    existsSync(SYSTEM_ATTRIBUTES)
  );
}
/** Where Debian's and most distributions' git read system-wide attributes ($(prefix)/etc is /etc for /usr). */
export const SYSTEM_ATTRIBUTES = "/etc/gitattributes";
