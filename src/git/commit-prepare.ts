import { realpathSync } from "node:fs";
import type { Judged } from "../model/ledger.js";
import { commitEntries, commitInNode, treeInNode } from "./commit-in-node.js";
import type { CommitterIdentity } from "./committer.js";
import type { CommitIndex } from "./index-merge.js";
import { type TreeScope, UNBORN } from "./judge.js";
import { type PreparedUserIndex, prepareUserIndex, type UserIndexReset } from "./user-index.js";

/**
 * A commit of one judged tree made ahead, while completion's `git status` runs (it does not depend on that
 * answer): the commit's tree and object written loose (unreachable until a ref names them, as any object a
 * dropped commit leaves), the commit's entries and the user's index merged in memory. Nothing is published:
 * the branch, the user's index and prd.json are written by the commit itself, after the status said the tree
 * is the judged one, and only with what it checks again then (preparedFor).
 */
export interface PreparedCommit {
  judged: Judged;
  subject: string;
  identity: CommitterIdentity;
  /** The commit's tree (built with the prd.json contents about to be written) and its .gantry/ tree. */
  tree: string;
  gantry: string;
  commit: string;
  /** The commit's entries, from the judge's read of the private index; undefined: read by the commit. */
  entries?: CommitIndex;
  userIndex?: PreparedUserIndex;
}

export interface PrepareInput {
  judged: Judged;
  subject: string;
  identity: CommitterIdentity;
  /** prd.json contents the story store is about to write, by absolute path (its `preview`). */
  contents: ReadonlyMap<string, Buffer>;
  /** The user's index file, the version gantry wrote last and where the merge writes (as commitJudged's). */
  userIndex?: string;
  userIndexWritten?: UserIndexReset;
  userIndexBuffer?: (size: number) => Buffer;
}

/** The commit made ahead; undefined when node would not make it (git does then, after the status, as before). */
export function prepareCommit(scope: TreeScope, input: PrepareInput): PreparedCommit | undefined {
  const { judged, subject, identity } = input;
  if (judged.sha === UNBORN) return undefined;
  // By real path, as the tree's builder names them (from the top level git gave).
  const contents = new Map([...input.contents].map(([path, content]) => [realpathSync(path), content]));
  const built = treeInNode(scope, judged.tree, judged.sha, contents);
  const commit = built && commitInNode(scope, identity, built.tree, judged.sha, subject);
  if (!built || !commit) return undefined;
  // Only from the judge's own read: the private index file is being rewritten by the status meanwhile.
  const known = scope.judgedIndex?.tree === judged.tree;
  const entries = known && input.userIndex ? commitEntries(scope, built.gantry, judged.tree) : undefined;
  const userIndex =
    entries && input.userIndex
      ? prepareUserIndex(input.userIndex, entries, input.userIndexWritten, input.userIndexBuffer)
      : undefined;
  return {
    judged,
    subject,
    identity,
    tree: built.tree,
    gantry: built.gantry,
    commit,
    ...(entries ? { entries } : {}),
    ...(userIndex ? { userIndex } : {}),
  };
}

/**
 * The prepared commit when it is exactly the one to make now: the same judged HEAD and tree, subject and
 * identity, and the same tree as the commit just built from the disk (prd.json as the store wrote it).
 */
export function preparedFor(
  prepared: PreparedCommit | undefined,
  judged: Judged,
  subject: string,
  identity: CommitterIdentity,
  tree: string | undefined,
): PreparedCommit | undefined {
  if (!prepared || tree === undefined || prepared.tree !== tree || prepared.subject !== subject)
    return undefined;
  if (prepared.judged.sha !== judged.sha || prepared.judged.tree !== judged.tree) return undefined;
  const keys = Object.keys(identity);
  const same =
    keys.length === Object.keys(prepared.identity).length &&
    keys.every((key) => prepared.identity[key] === identity[key]);
  return same ? prepared : undefined;
}
