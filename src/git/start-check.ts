import type { Judged } from "../model/ledger.js";
import { largeIndexFile } from "./add-on-two-cores.js";
import { runGit } from "./exec.js";
import type { TreeScope } from "./judge.js";
import { parseJudgedDiff } from "./judged-changes.js";

export interface StartCheckInput {
  projectRoot: string;
  prefix: string;
  /** The user's index file (`<git dir>/index`). */
  userIndex: string;
  /** The pathspecs that leave gantry's own files out. */
  outside: readonly string[];
  /** The private index's scope, made when asked for. */
  scope: () => Promise<TreeScope>;
  judge: () => Promise<Judged>;
  /** Run while the start's judge hashes: what the first story reads before its session anyway. */
  meanwhile: () => void;
}

/** Files changed in the working tree (relative to the project root), .gantry/ excluded: git's status. */
export async function dirtyFiles(projectRoot: string, outside: readonly string[]): Promise<string[]> {
  // GIT_OPTIONAL_LOCKS=0: status does not write its refreshed stat data back into the user's index, which
  // would take the index lock and make judge() copy and strip the index again.
  const out = await runGit(
    projectRoot,
    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".", ...outside],
    { GIT_OPTIONAL_LOCKS: "0" },
  );
  return out
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => entry.slice(3));
}

/** Whether the user's index holds HEAD's entries under the project root (objects only: no stat data read). */
async function sameIndexAsHead(projectRoot: string, outside: readonly string[]): Promise<boolean> {
  try {
    await runGit(projectRoot, ["diff-index", "--cached", "--quiet", "HEAD", "--", ".", ...outside], {
      GIT_OPTIONAL_LOCKS: "0",
    });
    return true;
  } catch {
    return false; // exit 1 (a staged change), or no HEAD: status says
  }
}

/**
 * The run's start check: what dirtyFiles lists, answered by the run's first judge when the working tree and
 * the user's index are both HEAD's (no status pass then; the judged tree is kept for the first session).
 */
export async function uncommittedAtStart(input: StartCheckInput): Promise<string[]> {
  const { projectRoot, outside, prefix } = input;
  // A small tree: status costs less than a judge and a diff-index (and the first session judges anyway).
  if (!largeIndexFile(input.userIndex)) return dirtyFiles(projectRoot, outside);
  // While the judge's git hashes, node makes what the first story reads before its session anyway: the
  // ignored listing and the user's index's paths (readiness; the tamper snapshot's flags come with them).
  const scope = await input.scope();
  scope.meanwhile = input.meanwhile;
  const clean = await Promise.all([input.judge(), sameIndexAsHead(projectRoot, outside)])
    .then(([judged, indexSame]) => {
      const diff = scope.lastDiff;
      if (!indexSame || diff?.tree !== judged.tree || diff.head !== judged.sha) return false;
      return parseJudgedDiff(diff.raw, prefix)?.length === 0;
    })
    // A tree the judge refuses (a nested repository, a link out of the tree) or git failing: status says.
    .catch(() => false);
  scope.meanwhile = undefined;
  return clean ? [] : dirtyFiles(projectRoot, outside);
}
