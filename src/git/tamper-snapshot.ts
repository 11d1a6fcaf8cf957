import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { runGit } from "./exec.js";

/**
 * Files in the git directory whose content decides how git behaves: config, hooks, excludes, attributes,
 * the sparse checkout. What git's own housekeeping writes (packs, packed refs, info/refs, reflogs) is not
 * among them: gc is not tampering. Refs are compared by value, however git stores them.
 */
const WATCHED_DIRS = ["hooks"];
const WATCHED_FILES = [
  "config",
  "config.worktree",
  "objects/info/alternates",
  "info/attributes",
  "info/exclude",
  "info/sparse-checkout",
  "info/grafts",
];
/** Of those, the ones each worktree has for itself. */
const PER_WORKTREE = new Set(["config.worktree", "info/sparse-checkout"]);
/** Files and folders that exist while git is in the middle of something. */
const IN_PROGRESS = [
  "MERGE_HEAD",
  "CHERRY_PICK_HEAD",
  "REVERT_HEAD",
  "BISECT_LOG",
  "rebase-merge",
  "rebase-apply",
  "sequencer",
];
/** A watched folder with more entries than this is itself a finding; no loop over it is unbounded. */
const MAX_ENTRIES = 2000;

export interface GitSnapshot {
  /** The HEAD file as written: `ref: refs/heads/main` or a commit id. */
  headFile: string;
  refs: Map<string, string>;
  /** Relative path in the git directory → what is there (undefined: absent). */
  files: Map<string, Entry | undefined>;
  inProgress: string[];
  /** `S path` (skip-worktree) and `h path` (assume-unchanged) entries of the user's index. */
  indexFlags: Set<string>;
  /** Which version of the index file the flags were read from (git replaces the file on every write). */
  indexKey: string;
}

export interface GitChange {
  kind: "git-file" | "index-flag" | "head" | "in-progress" | "ref" | "settings";
  what: string;
  /** Whether gantry put it back as it was. */
  restored: boolean;
}

export async function snapshotGit(
  cwd: string,
  gitDir: string,
  commonDir: string,
  /** The index flags as known for an index file (a snapshot before, or gantry's own commit). */
  before?: Pick<GitSnapshot, "indexKey" | "indexFlags">,
  /** The project's path from the top level: the flags looked at are its files'. */
  prefix = "",
): Promise<GitSnapshot> {
  const index = join(gitDir, "index");
  const key = fileKey(index);
  // Flags live in the index file: while it is the same file, they are the same flags.
  const flags = before && before.indexKey === key ? before : await indexFlagsOf(cwd, key, prefix);
  const files = new Map<string, Entry | undefined>();
  for (const name of WATCHED_FILES) files.set(name, read(join(gitDirFor(name, gitDir, commonDir), name)));
  for (const dir of WATCHED_DIRS) {
    const names = list(join(commonDir, dir));
    for (const name of names) files.set(`${dir}/${name}`, read(join(commonDir, dir, name)));
    // Entries past the bound are not read: a folder over it is recorded as one entry with its size, so
    // that a session growing a folder past it (to hide a hook past the bound) is a change, not unseen.
    if (names.over > 0)
      files.set(`${dir} (over ${MAX_ENTRIES} entries)`, {
        kind: "other",
        description: `${MAX_ENTRIES + names.over} entries`,
      });
  }
  return {
    headFile: readHead(gitDir),
    refs: await refs(cwd),
    files,
    inProgress: IN_PROGRESS.filter((name) => existsSync(join(gitDir, name))),
    indexKey: flags.indexKey,
    indexFlags: flags.indexFlags,
  };
}

/**
 * What changed in git between two snapshots, each said in words. The git directory's files, the index
 * flags and a moved branch are put back; a switched HEAD or an operation in progress is only reported.
 */
export async function compareAndRestore(
  cwd: string,
  dirs: { gitDir: string; commonDir: string },
  before: GitSnapshot,
  after: GitSnapshot,
): Promise<GitChange[]> {
  const changes: GitChange[] = [];
  const names = new Set([...before.files.keys(), ...after.files.keys()]);
  for (const name of [...names].sort()) {
    const was = before.files.get(name);
    const now = after.files.get(name);
    if (same(was, now)) continue;
    const path = join(gitDirFor(name, dirs.gitDir, dirs.commonDir), name);
    // Plain files are put back as they were (a symlink put in their place is removed, never followed).
    const restorable = was?.kind !== "other" && now?.kind !== "other";
    if (restorable) {
      rmSync(path, { force: true, recursive: true });
      if (was !== undefined) writeFileSync(path, was.data, { mode: was.mode });
    }
    const verb = was === undefined ? "added" : now === undefined ? "removed" : "changed";
    changes.push({ kind: "git-file", what: `.git/${name} ${verb}`, restored: restorable });
  }
  for (const flag of after.indexFlags) {
    if (before.indexFlags.has(flag)) continue;
    const path = flag.slice(2);
    const kind = flag.startsWith("S") ? "skip-worktree" : "assume-unchanged";
    let restored = true;
    try {
      // One flag a call: update-index applies only the first of --no-assume-unchanged / --no-skip-worktree.
      await runGit(cwd, ["update-index", `--no-${kind}`, "--", path]);
    } catch {
      restored = false; // the entry is gone from the index since: reported as it is
    }
    changes.push({ kind: "index-flag", what: `${kind} set on ${path} in the index`, restored });
  }
  if (before.headFile !== after.headFile) {
    changes.push({
      kind: "head",
      what: `HEAD changed from "${before.headFile}" to "${after.headFile}"`,
      restored: false,
    });
  }
  for (const name of after.inProgress.filter((n) => !before.inProgress.includes(n))) {
    changes.push({
      kind: "in-progress",
      what: `git was left in the middle of an operation (.git/${name})`,
      restored: false,
    });
  }
  changes.push(...(await restoreRefs(cwd, before, after)));
  return changes;
}

async function restoreRefs(cwd: string, before: GitSnapshot, after: GitSnapshot): Promise<GitChange[]> {
  const changes: GitChange[] = [];
  const names = new Set([...before.refs.keys(), ...after.refs.keys()]);
  for (const ref of [...names].sort()) {
    const was = before.refs.get(ref);
    const now = after.refs.get(ref);
    if (was === now) continue;
    // Compare-and-swap back: only if the ref still holds what the session left.
    // A ref the session created is left where it is (deleting refs/stash would drop its entries with it).
    let restored = false;
    if (was !== undefined) {
      try {
        await runGit(cwd, ["-c", "core.hooksPath=/dev/null", "update-ref", ref, was, now ?? "0".repeat(40)]);
        restored = true;
      } catch {
        // It moved again since: reported as not restored.
      }
    }
    const what =
      was === undefined
        ? `${ref} created at ${short(now)}`
        : now === undefined
          ? `${ref} deleted (was ${short(was)})`
          : `${ref} moved from ${short(was)} to ${short(now)}`;
    changes.push({ kind: "ref", what, restored });
  }
  return changes;
}

/** Which version of a file this is (git replaces the index file on every write). */
export function fileKey(path: string): string {
  try {
    const stat = statSync(path, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
  } catch {
    return "";
  }
}

async function refs(cwd: string): Promise<Map<string, string>> {
  const out = await runGit(cwd, ["for-each-ref", "--format=%(objectname) %(refname)"]);
  const map = new Map<string, string>();
  for (const line of out.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) map.set(line.slice(space + 1), line.slice(0, space));
  }
  return map;
}

/** config.worktree and HEAD live in a worktree's own git directory; the rest in the common one. */
function gitDirFor(name: string, gitDir: string, commonDir: string): string {
  return PER_WORKTREE.has(name) ? gitDir : commonDir;
}

/** `S path` (skip-worktree) and `h path` (assume-unchanged) for the project's entries: `git ls-files -v`. */
async function indexFlagsOf(
  cwd: string,
  key: string,
  prefix: string,
): Promise<Pick<GitSnapshot, "indexKey" | "indexFlags">> {
  const out = await runGit(cwd, ["ls-files", "-v", "-z", "--full-name", "--", `:(top)${prefix}`], {
    GIT_OPTIONAL_LOCKS: "0",
  });
  return { indexKey: key, indexFlags: parseIndexFlags(out) };
}

/** `git ls-files -v -z`'s tags: S skip-worktree, a lowercase tag assume-unchanged, s both. */
export function parseIndexFlags(out: string): Set<string> {
  const flags = new Set<string>();
  for (const entry of out.split("\0")) {
    const tag = entry[0] ?? "";
    const path = entry.slice(2);
    if (tag === "S" || tag === "s") flags.add(`S ${path}`);
    if (tag >= "a" && tag <= "z") flags.add(`h ${path}`);
  }
  return flags;
}

/** The first MAX_ENTRIES names of a folder, sorted, and how many more there are. */
function list(dir: string): string[] & { over: number } {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    names = [];
  }
  return Object.assign(names.slice(0, MAX_ENTRIES), { over: Math.max(0, names.length - MAX_ENTRIES) });
}

type Entry = { kind: "file"; mode: number; data: Buffer } | { kind: "other"; description: string };

function read(path: string, depth = 0): Entry | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isFile()) return { kind: "file", mode: stat.mode & 0o7777, data: readFileSync(path) };
    if (stat.isSymbolicLink()) return { kind: "other", description: `symlink to ${readlinkSync(path)}` };
    if (!stat.isDirectory()) return { kind: "other", description: "special" };
    // A folder in hooks/ or info/ (a hook manager's pre-commit.d/) is one entry: its names and, one level
    // deep, what each holds, so that a script edited inside it is a change too.
    const names = list(path);
    const inside = names.map((name) => (depth > 0 ? name : `${name}: ${summary(read(join(path, name), 1))}`));
    return { kind: "other", description: `directory ${inside.join(", ")} (+${names.over})` };
  } catch {
    return undefined;
  }
}

function summary(entry: Entry | undefined): string {
  if (entry === undefined) return "unreadable";
  return entry.kind === "file" ? `${entry.mode.toString(8)} ${digest(entry.data)}` : entry.description;
}

function readHead(gitDir: string): string {
  try {
    return readFileSync(join(gitDir, "HEAD"), "utf8").trim();
  } catch {
    return "";
  }
}

function same(a: Entry | undefined, b: Entry | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind === "other" || b.kind === "other")
    return (
      a.kind === b.kind &&
      (a as { description: string }).description === (b as { description: string }).description
    );
  return a.mode === b.mode && a.data.length === b.data.length && digest(a.data) === digest(b.data);
}

const digest = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const short = (sha: string | undefined) => (sha ?? "").slice(0, 12);
