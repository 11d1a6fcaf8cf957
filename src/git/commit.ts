import { copyFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import type { Judged } from "../model/ledger.js";
import { commitEntries, commitInNode, treeInNode } from "./commit-in-node.js";
import { type PreparedCommit, preparedFor } from "./commit-prepare.js";
import type { CommitterIdentity } from "./committer.js";
import { FIRST_STEP_EXIT, runGitScript } from "./exec.js";
import { GANTRY_DIR, type TreeScope, UNBORN, writePrivateHead } from "./judge.js";
import { resetUserIndex, type UserIndexReset } from "./user-index.js";

/** The commit gantry made is not what HEAD holds afterwards: a hook or another process moved it. */
export class CommitMismatch extends Error {
  override name = "CommitMismatch";
}

export interface CommitPlan {
  judged: Judged;
  subject: string;
  /** The private index holds exactly the judged tree (the judge just built it): it is not read again. */
  indexHoldsTree?: boolean;
  /** The user's index file (`<git dir>/index`): reset to the commit in node when it can be. */
  userIndex?: string;
  /** The user's index as gantry last wrote it: not read again while the file is that one. */
  userIndexWritten?: UserIndexReset;
  /** Where the merge writes the user's index (user-index-book.ts buffer); a fresh buffer when not given. */
  userIndexBuffer?: (size: number) => Buffer;
  /** HEAD as it is now (read from the repository's files where it can be): checked against the commit made. */
  head: () => Promise<string>;
  /** Who commits (committer.ts): the private git has no config of its own. */
  identity: CommitterIdentity;
  /** Awaited before the branch moves (and not before): what must be durable by then, synced meanwhile. */
  ready?: Promise<unknown>;
  /** The commit made ahead while completion's status ran (commit-prepare.ts): used only if it is this one. */
  prepared?: PreparedCommit;
}

/** The variables that point git at the private directory: the steps on the user's repository drop them. */
const PRIVATE = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_CONFIG_GLOBAL",
];

/** git on the user's repository: the private variables dropped, no hooks, no fsmonitor. */
const REAL = `real() ( unset ${PRIVATE.join(" ")}; exec git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@" )`;

/** What each `exit 200+N` of the script names. */
const STEPS = [
  "git read-tree (the judged tree)",
  "git read-tree (HEAD's .gantry/)",
  "git add (prd.json)",
  "git write-tree",
  "git commit-tree",
  "git update-ref (compare-and-swap)",
  "git read-tree (the user's index)",
];

/**
 * The whole commit in one shell ($1 judged tree, $2 judged HEAD or "", $3 .gantry's path, $4 subject,
 * $5 "1" when the commit index ($6) is already a copy of the private index holding the judged tree):
 * a git started from a small shell costs far less than one forked from node. The commit's tree is built
 * in its own index, so the private index keeps the judged tree for the next judge (no `rm --cached`).
 * `real` runs git on the user's repository (the private variables dropped), hooks off. Six programs; one,
 * the compare-and-swap, when node built the tree ($7), wrote the commit ($9) and resets the user's index ($8).
 */
const SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  `GIT_INDEX_FILE="$6"; export GIT_INDEX_FILE`,
  // A subshell rather than `env -u`: a fork of the shell costs far less than one more program to exec.
  REAL,
  // $7: the commit's tree, already built in node (committed-tree.ts).
  `tree=$7`,
  `if [ -z "$tree" ]; then`,
  `if [ "$5" != 1 ]; then git read-tree -m -i "$1" || exit $((e+0)); fi`,
  // HEAD's .gantry/, read straight by name; only when that fails is it asked whether HEAD has one at all.
  `if [ -n "$2" ] && ! git read-tree --prefix="$3/" "$2:$3" 2>/dev/null && git cat-file -e "$2:$3" 2>/dev/null; then exit $((e+1)); fi`,
  `err=$(git add -A -- ":(top,glob)$3/features/*/prd.json" 2>&1 >/dev/null) || case "$err" in *"are ignored by one of your .gitignore files"*) ;; *) printf '%s\\n' "$err" >&2; exit $((e+2)) ;; esac`,
  `tree=$(git write-tree) || exit $((e+3))`,
  "fi",
  // $9: the commit object, already written in node (commit-object.ts).
  `if [ -n "$9" ]; then commit=$9; elif [ -n "$2" ]; then commit=$(git commit-tree "$tree" -p "$2" -m "$4") || exit $((e+4)); else commit=$(git commit-tree "$tree" -m "$4") || exit $((e+4)); fi`,
  `real update-ref -m "gantry: $4" HEAD "$commit" "\${2:-0000000000000000000000000000000000000000}" || exit $((e+5))`,
  // $8 "1": node resets the user's index afterwards (user-index.ts).
  `if [ "$8" != 1 ]; then real read-tree -m -i "$commit" || exit $((e+6)); fi`,
  `printf '%s %s\\n' "$commit" "$tree"`,
].join("\n");

/**
 * Commits exactly the judged tree, plus gantry's own files as HEAD has them (no edit to the config made
 * during the run is committed) and the features' prd.json, without staging the working tree again:
 * commit-tree on that tree, then the branch moved only if it still points where the judge saw it
 * (compare-and-swap), with no hook run. The user's index is then reset to the new commit. Returns the
 * commit id and its tree (.gantry/ included), and the user's index when node wrote it; throws
 * CommitMismatch when HEAD is not it afterwards.
 */
export async function commitJudged(
  scope: TreeScope,
  plan: CommitPlan,
): Promise<{ commit: string; tree: string; userIndex?: UserIndexReset }> {
  const gantry = `${scope.prefix}${GANTRY_DIR}`;
  const holds = plan.indexHoldsTree === true;
  scope.index.head = undefined;
  const parent = plan.judged.sha === UNBORN ? "" : plan.judged.sha;
  const commitIndex = join(scope.git.dir, "commit-index");
  rmSync(commitIndex, { force: true });
  const built = parent === "" ? undefined : treeInNode(scope, plan.judged.tree, parent);
  if (holds && !built) copyIndex(join(scope.git.dir, "index"), commitIndex);
  const ahead = preparedFor(plan.prepared, plan.judged, plan.subject, plan.identity, built?.tree);
  const entries =
    holds && built && plan.userIndex
      ? (ahead?.entries ?? commitEntries(scope, built.gantry, plan.judged.tree))
      : undefined;
  const made = built
    ? (ahead?.commit ?? commitInNode(scope, plan.identity, built.tree, parent, plan.subject))
    : undefined;
  await plan.ready;
  const out = await runGitScript(
    scope.cwd,
    SCRIPT,
    [
      plan.judged.tree,
      parent,
      gantry,
      plan.subject,
      holds ? "1" : "",
      commitIndex,
      built?.tree ?? "",
      entries ? "1" : "",
      made ?? "",
    ],
    { ...scope.git.env, ...plan.identity },
    STEPS,
  );
  const [commit = "", tree = ""] = out.trim().split(/\s+/);
  const userIndex =
    entries && plan.userIndex
      ? resetUserIndex(
          plan.userIndex,
          scope.top,
          entries,
          plan.userIndexWritten,
          plan.userIndexBuffer,
          entries === ahead?.entries ? ahead.userIndex : undefined,
        )
      : undefined;
  if (entries && !userIndex)
    await runGitScript(
      scope.cwd,
      `${REAL}\nreal read-tree -m -i "$1" || exit ${FIRST_STEP_EXIT}`,
      [commit],
      {},
      ["git read-tree (the user's index)"],
    );
  // The private index still holds the judged tree without .gantry/, now HEAD's entries: what the next
  // judge starts from. Otherwise it holds something else, and the next judge rebuilds it from HEAD.
  if (holds) scope.index.head = commit;
  writePrivateHead(scope, commit);
  // A commit's id names its tree: HEAD being the commit is HEAD's tree being the tree committed.
  const head = await plan.head();
  if (head !== commit)
    throw new CommitMismatch(
      `HEAD is ${head.slice(0, 12)} after gantry committed ${commit.slice(0, 12)}: a hook or another process moved the branch`,
    );
  return { commit, tree, ...(userIndex ? { userIndex } : {}) };
}

/** A copy with the original's modification time: git's racy-entry rule compares entries with it. */
function copyIndex(from: string, to: string): void {
  copyFileSync(from, to);
  const { atime, mtime } = statSync(from);
  utimesSync(to, atime, mtime);
}
