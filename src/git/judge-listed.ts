import { statSync } from "node:fs";
import { join } from "node:path";
import { addInNode } from "./add-in-node.js";
import type { PrivateGit } from "./hermetic.js";
import { addPathspecs, differencesFromIndex } from "./judge-status.js";
import type { PlainIndex } from "./plain-index.js";
import type { ReadBuffer } from "./reused-read.js";

/** What of the judge's scope (judge.ts TreeScope) the listing and the add in node use. */
interface ListingScope {
  top: string;
  prefix: string;
  git: PrivateGit;
  statusStarted?: number;
  judgeRead?: ReadBuffer;
  addOut?: ReadBuffer;
}

/**
 * From this size of private index on (about 5,000 entries of the bench's paths) the judge lists before it
 * adds. Measured alone: at 10,000 entries status (84 ms of CPU) plus git's add of the paths (20 ms) and a
 * program more cost what `add -A` does (108 ms); at 50,000, 0.42 s against 0.59 s. Since the listed paths
 * are added in node (round nine: no program after the status) listing pays from about 5,000 entries: at
 * 10,000 files the bench's CPU per story (slope) fell 380 → 326 ms with the threshold at 512 KB instead of 2 MB.
 */
export const LIST_FIRST_INDEX_BYTES = 512 * 1024;

/**
 * On a large tree whose private index holds the last judge (or HEAD's entries after a commit), what to add:
 * the paths git's status lists as differing from that index (judge-status.ts), so that `add` does not read
 * every folder again (status reads only those whose stat data changed, through the untracked cache). At
 * 50,000 files status and an add of those paths cost 0.42 s of CPU where `add -A` costs 0.59 s. What status
 * lists is what the stat check trusts to say "unchanged" (docs/security.md). Undefined: add everything (a
 * smaller tree, a list too long, status failing).
 */
export async function listedChanges(
  scope: ListingScope,
  gantry: string,
): Promise<{ paths: string[]; pathspecs: string[] } | undefined> {
  const size = statSync(join(scope.git.dir, "index"), { throwIfNoEntry: false })?.size ?? 0;
  if (size < LIST_FIRST_INDEX_BYTES) return undefined;
  try {
    const paths = await differencesFromIndex(scope);
    const pathspecs = addPathspecs(paths, gantry);
    return pathspecs && { paths, pathspecs };
  } catch {
    return undefined;
  }
}

/**
 * The listed paths added to the private index in node (add-in-node.ts): the index written, as git's add
 * would write it, or undefined with nothing changed (git's add runs then). Nothing listed: nothing to add.
 */
export function addListedInNode(
  scope: ListingScope,
  objects: string,
  paths: string[],
): PlainIndex | undefined {
  if (paths.length === 0) return undefined;
  scope.addOut ??= {};
  try {
    return addInNode({
      top: scope.top,
      indexPath: join(scope.git.dir, "index"),
      objectsDir: objects,
      paths,
      read: scope.judgeRead ?? {},
      out: scope.addOut,
    });
  } catch {
    return undefined;
  }
}
