import { realpathSync } from "node:fs";
import { sep } from "node:path";

/**
 * What gantry has started that could have touched a working tree: the judge's cache is keyed on it. A
 * tree judged when nothing has run since needs no look at the disk; after commands that are not meant to
 * change files (tests, lint, typecheck) a stat check is enough; after any other (an agent session, a
 * fixer, a hook) the tree is built again.
 *
 * A command counts for every tree, unless it started with a WriteScope: a sandbox that provably lets it
 * write one working tree alone of the trees gantry judges (sandbox.ts registers the wrappers it builds),
 * or one of gantry's own git programs that writes one worktree's files. Such a command counts only for
 * the trees it can reach, so with parallel stories one worker's agent session does not make every other
 * worker's next judge a full one. When in doubt a command counts everywhere.
 */
export interface Activity {
  /** Commands started so far. */
  started: number;
  /** Of those, the ones that may change files. */
  writers: number;
  /** Commands still running: while one is, no judged tree is taken as settled. */
  running: number;
  /** Of those, the ones that may change files: while one is, a judged tree is not kept at all. */
  runningWriters: number;
}

/** Where a command can write, of the working trees gantry judges. */
export interface WriteScope {
  /** The one working tree (or a folder in it) it may write; what lies under its `.git` is not written. */
  tree: string;
  /**
   * Folders it cannot write anything in (bound read-only over every writable place above them): a tree
   * inside one of these that does not overlap `tree` is out of its reach. `/` when it writes `tree` alone.
   */
  shielded: readonly string[];
}

interface Tally {
  scope: WriteScope;
  counts: Activity;
}

const everywhere: Activity = { started: 0, writers: 0, running: 0, runningWriters: 0 };
/** By scope (real paths). Never removed: a tree's sum over the records that reach it only ever grows. */
const scoped = new Map<string, Tally>();

/** A command is starting; call the returned function once it has ended (and everything it started with it). */
export function noteCommand(mayWrite: boolean, scope?: WriteScope): () => void {
  const counts = (scope && tallyFor(scope)?.counts) ?? everywhere;
  counts.started += 1;
  if (mayWrite) counts.writers += 1;
  counts.running += 1;
  if (mayWrite) counts.runningWriters += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    counts.running -= 1;
    if (mayWrite) counts.runningWriters -= 1;
    // An end counts as activity too: what the command did up to its last moment is seen by the next check.
    counts.started += 1;
  };
}

/**
 * What has run that could have touched the working tree at `tree` (a real path: see realTree), or any tree
 * when none is named.
 */
export function activity(tree?: string): Activity {
  const total = { ...everywhere };
  for (const { scope, counts } of scoped.values()) {
    if (tree !== undefined && outOfReach(tree, scope)) continue;
    total.started += counts.started;
    total.writers += counts.writers;
    total.running += counts.running;
    total.runningWriters += counts.runningWriters;
  }
  return total;
}

/** The real path activity() takes a tree by; undefined when it cannot be resolved (then ask for all trees). */
export function realTree(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Resolved when the command starts, as bwrap resolves its binds then; a path that does not resolve: no scope. */
function tallyFor(scope: WriteScope): Tally | undefined {
  const tree = realTree(scope.tree);
  if (tree === undefined) return undefined;
  const shielded: string[] = [];
  for (const path of scope.shielded) {
    const real = realTree(path);
    // A shield that is not there shields nothing (bwrap binds only paths that exist).
    if (real !== undefined) shielded.push(real);
  }
  const key = [tree, ...shielded.sort()].join("\0");
  let tally = scoped.get(key);
  if (!tally) {
    tally = { scope: { tree, shielded }, counts: { started: 0, writers: 0, running: 0, runningWriters: 0 } };
    scoped.set(key, tally);
  }
  return tally;
}

/** Whether `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  if (path === folder) return true;
  const prefix = folder.endsWith(sep) ? folder : `${folder}${sep}`;
  return path.startsWith(prefix);
}

/**
 * A tree the command cannot write: it lies in a shielded folder, and neither holds the command's tree nor
 * lies in it (what lies under a tree's `.git` is no part of that tree: story worktrees live there).
 */
function outOfReach(tree: string, scope: WriteScope): boolean {
  const touches =
    (within(scope.tree, tree) && !within(scope.tree, `${tree}${sep}.git`)) ||
    (within(tree, scope.tree) && !within(tree, `${scope.tree}${sep}.git`));
  return !touches && scope.shielded.some((folder) => within(tree, folder));
}
