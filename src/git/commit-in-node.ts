import { join } from "node:path";
import { stampNow, writeCommit } from "./commit-object.js";
import { buildCommittedTree } from "./committed-tree.js";
import type { CommitterIdentity } from "./committer.js";
import { GitObjects } from "./git-objects.js";
import type { CommitIndex } from "./index-merge.js";
import { GANTRY_DIR, type TreeScope } from "./judge.js";
import { type RawEntry, scanPlainIndex } from "./plain-index.js";
import { readReusing } from "./reused-read.js";

/**
 * The commit's entries, each list sorted as an index has them: the private index's (it holds exactly the
 * judged tree, `judgedTree`) and the committed .gantry/ tree's, read in node; undefined when either cannot be
 * read. The private index's entries are the judge's read of it when that judge wrote this tree in node (the
 * same entries: git's status since rewrote only stat data and extensions), else read again.
 */
export function commitEntries(
  scope: TreeScope,
  gantryTree: string,
  judgedTree?: string,
): CommitIndex | undefined {
  const objects = scope.git.env.GIT_OBJECT_DIRECTORY;
  try {
    // Read into the scope's own buffer: its judges and commits run one at a time, and the merge that uses
    // these bytes keeps no view of them (index-merge.ts copies them into the file it writes).
    scope.commitRead ??= {};
    const known =
      judgedTree !== undefined && scope.judgedIndex?.tree === judgedTree ? scope.judgedIndex : undefined;
    const judged = !objects
      ? undefined
      : (known?.plain ?? scanPlainIndex(readReusing(join(scope.git.dir, "index"), scope.commitRead)));
    const listed =
      judged && new GitObjects(objects as string).listTree(gantryTree, `${scope.prefix}${GANTRY_DIR}/`);
    if (!judged || !listed) return undefined;
    const empty = Buffer.alloc(40);
    const gantry: RawEntry[] = listed.map((entry) => ({
      path: Buffer.from(entry.path),
      mode: Number.parseInt(entry.mode, 8),
      id: entry.id,
      stat: empty,
    }));
    return { judged, gantry: gantry.sort((a, b) => Buffer.compare(a.path, b.path)) };
  } catch {
    return undefined;
  }
}

/**
 * The commit object written in node, as `git commit-tree` would write it now; undefined (git writes it)
 * when the environment sets a date git would take instead of now.
 */
export function commitInNode(
  scope: TreeScope,
  id: CommitterIdentity,
  tree: string,
  parent: string,
  subject: string,
): string | undefined {
  const objects = scope.git.env.GIT_OBJECT_DIRECTORY;
  if (!objects || !id || process.env.GIT_AUTHOR_DATE || process.env.GIT_COMMITTER_DATE) return undefined;
  const { GIT_AUTHOR_NAME: an, GIT_AUTHOR_EMAIL: ae, GIT_COMMITTER_NAME: cn, GIT_COMMITTER_EMAIL: ce } = id;
  if (an === undefined || ae === undefined || cn === undefined || ce === undefined) return undefined;
  const now = new Date();
  try {
    return writeCommit(
      new GitObjects(objects),
      tree,
      parent,
      stampNow(an, ae, now),
      stampNow(cn, ce, now),
      subject,
    );
  } catch {
    return undefined;
  }
}

/** The commit's tree built in node (sha1 repositories), or undefined for git to build it. */
export function treeInNode(
  scope: TreeScope,
  judgedTree: string,
  head: string,
  contents?: ReadonlyMap<string, Buffer>,
): { tree: string; gantry: string } | undefined {
  const objects = scope.git.env.GIT_OBJECT_DIRECTORY;
  if (!objects || judgedTree.length !== 40) return undefined;
  try {
    return buildCommittedTree({
      objects,
      top: scope.top,
      prefix: scope.prefix,
      judgedTree,
      head,
      ...(contents ? { contents } : {}),
    });
  } catch {
    return undefined; // a folder or object it cannot read or write: git says what is wrong, if anything
  }
}
