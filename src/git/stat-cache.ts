import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * The private index a run ended with, kept for the next run in the same working tree so that its first
 * judge does not hash every file again. It lives in gantry's state directory (0700, hidden from sandboxed
 * sessions like the ledger keys: docs/security.md), never in the tree or in .git, which an agent can write.
 * It is used only for its stat data: the first judge rebuilds the index from HEAD (`read-tree -m`), which
 * keeps an entry's stat data only where its blob id is HEAD's, and git compares that stat data (ctime
 * included, which no process can set back) with the file before it skips hashing it.
 */
const MAX_KEPT = 32;

export function statCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : undefined;
  return join(state ?? join(env.HOME || homedir(), ".local", "state"), "gantry", "index-cache");
}

function cacheFile(top: string, env: NodeJS.ProcessEnv): string {
  const id = createHash("sha256").update(realpathSync(top)).digest("hex");
  return join(statCacheDirectory(env), `${id}.index`);
}

/**
 * Puts the kept index of `top` into the private git directory when there is one that gantry could have
 * written and nobody else (this user's, mode 0600) and that is a plain index: version 2, sha1, every entry
 * at stage 0 with no flags (no assume-unchanged, no skip-worktree, no intent-to-add), checksum right.
 * Returns whether it did; any doubt is no (the first judge then hashes every file, as without a cache).
 */
export function loadStatCache(
  top: string,
  privateDir: string,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  try {
    const file = cacheFile(top, env);
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) return false;
    const bytes = readFileSync(file);
    if (!plainIndex(bytes)) return false;
    const target = join(privateDir, "index");
    writeFileSync(target, bytes, { mode: 0o600 });
    // The index file's time as git wrote it (rounded down): an entry as new as the index is "racily clean"
    // and hashed again; a later time would wrongly make such an entry look settled.
    const seconds = Math.floor(stat.mtimeMs) / 1000;
    utimesSync(target, seconds, seconds);
    return true;
  } catch {
    return false;
  }
}

/** Keeps the private index for the next run in `top` (best effort: a cache that cannot be written is none). */
export function saveStatCache(top: string, privateDir: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const source = join(privateDir, "index");
    const stat = statSync(source);
    const dir = statCacheDirectory(env);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const file = cacheFile(top, env);
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, readFileSync(source), { mode: 0o600 });
    const seconds = Math.floor(stat.mtimeMs) / 1000;
    utimesSync(temp, seconds, seconds);
    renameSync(temp, file);
    prune(dir);
  } catch {
    // Only an optimisation.
  }
}

/** At most MAX_KEPT working trees' indexes: the least recently written go. */
function prune(dir: string): void {
  const kept = readdirSync(dir)
    .filter((name) => name.endsWith(".index"))
    .map((name) => ({ path: join(dir, name), at: statSync(join(dir, name)).ctimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(MAX_KEPT)) rmSync(old.path, { force: true });
}

const HEADER = 12;
const FIXED = 62;
const SHA1 = 20;

/** Whether `bytes` is a version 2 sha1 index whose entries are all plain (see loadStatCache). */
export function plainIndex(bytes: Buffer): boolean {
  if (bytes.length < HEADER + SHA1 || bytes.toString("latin1", 0, 4) !== "DIRC") return false;
  if (bytes.readUInt32BE(4) !== 2) return false;
  const body = bytes.subarray(0, bytes.length - SHA1);
  if (
    !createHash("sha1")
      .update(body)
      .digest()
      .equals(bytes.subarray(bytes.length - SHA1))
  )
    return false;
  const count = bytes.readUInt32BE(8);
  let at = HEADER;
  for (let i = 0; i < count; i++) {
    if (at + FIXED > body.length) return false;
    const flags = bytes.readUInt16BE(at + 60);
    // assume-valid (0x8000), extended flags (0x4000: skip-worktree, intent-to-add), a merge stage (0x3000).
    if ((flags & 0xf000) !== 0) return false;
    let nameLength = flags & 0x0fff;
    if (nameLength === 0x0fff) nameLength = bytes.indexOf(0, at + FIXED) - (at + FIXED);
    if (nameLength < 0) return false;
    // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
    at += (FIXED + nameLength + 8) & ~7;
  }
  return at <= body.length;
}
