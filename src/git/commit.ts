import type { Judged } from "../model/ledger.js";
import { FIRST_STEP_EXIT, runGit, runGitScript } from "./exec.js";
import type { GitError } from "./git-error.js";
import { whileIndexLocked } from "./index-lock.js";
import { GANTRY_DIR, type JudgeScope, UNBORN } from "./judge.js";

/** HEAD is not the commit gantry just made: a hook or another process moved the branch. */
export class CommitMismatch extends Error {
  override name = "CommitMismatch";
}

export interface CommitPlan {
  judged: Judged;
  subject: string;
  /** The repository's top level: the user's index is set from there. */
  top: string;
  /** Where the commit's own index is built. */
  commitIndex: string;
  /** The judge's own index when it holds exactly the judged tree: copied rather than read from the tree again. */
  judgedIndex?: string;
  /** Settles once what must be durable before the branch moves is: awaited before the user's index is touched. */
  ready?: Promise<unknown>;
  /** Wraps the branch move (CommitOptions.moveBranch). */
  moveBranch?: (commit: string, move: () => Promise<void>) => Promise<void>;
}

const STEPS = [
  "git read-tree (judged tree)",
  "git read-tree (HEAD's .gantry/)",
  "git add (prd.json)",
  "git write-tree",
  "git commit-tree",
];

/**
 * The commit's tree and commit object, in an index of its own: the judged tree, HEAD's .gantry/ (no edit
 * to the config made during the run is committed) and the features' prd.json as on disk. $1 tree, $2 HEAD
 * ("" unborn), $3 gantry's folder, $4 subject, $5 the judge's index when it holds $1 (copied, not read from
 * the tree again). Prints the commit and its tree, then its changes against HEAD (diff-tree -z).
 */
const SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  `if [ -n "$5" ]; then cp -p "$5" "$GIT_INDEX_FILE" || exit $e; else git read-tree "$1" || exit $e; fi`,
  // HEAD's .gantry/ by name; only when that fails is it asked whether HEAD has one at all.
  `if [ -n "$2" ] && ! git read-tree --prefix="$3/" "$2:$3" 2>/dev/null && git cat-file -e "$2:$3" 2>/dev/null; then exit $((e+1)); fi`,
  `err=$(git add -A -- ":(top,glob)$3/features/*/prd.json" 2>&1 >/dev/null) || case "$err" in *"are ignored by one of your .gitignore files"*|*"did not match any files"*) ;; *) printf '%s\\n' "$err" >&2; exit $((e+2)) ;; esac`,
  `tree=$(git write-tree) || exit $((e+3))`,
  `if [ -n "$2" ]; then commit=$(git commit-tree "$tree" -p "$2" -m "$4") || exit $((e+4)); else commit=$(git commit-tree "$tree" -m "$4") || exit $((e+4)); fi`,
  `printf '%s %s\\n' "$commit" "$tree"`,
  `base=$2; [ -n "$base" ] || base=$(git hash-object -t tree /dev/null) || exit $((e+5))`,
  `git diff-tree -r -z --no-renames "$base" "$commit" || exit $((e+5))`,
].join("\n");

/**
 * Commits exactly the judged tree (plus gantry's files) with git's plumbing, in the order that leaves the
 * repository consistent at every step: the commit object first (nothing published), then the user's index
 * set to it for the paths the commit changes (update-index --index-info, which keeps every other entry and
 * its flags as they were, waiting within a bound for another git's lock), then the branch moved by compare-and-swap
 * from the judged HEAD. A failed move sets those index entries back, so index and HEAD agree either way.
 */
export async function commitJudged(
  scope: JudgeScope,
  plan: CommitPlan,
): Promise<{ commit: string; tree: string }> {
  const parent = plan.judged.sha === UNBORN ? "" : plan.judged.sha;
  const out = await runGitScript(
    scope.cwd,
    SCRIPT,
    [plan.judged.tree, parent, `${scope.prefix}${GANTRY_DIR}`, plan.subject, plan.judgedIndex ?? ""],
    { ...scope.env, GIT_INDEX_FILE: plan.commitIndex },
    STEPS,
  );
  const newline = out.indexOf("\n");
  const [commit = "", tree = ""] = out.slice(0, newline).split(" ");
  const { forward, back } = indexInfo(out.slice(newline + 1));
  await plan.ready;
  const git = (args: string[], input?: string) => runGit(plan.top, args, { ...scope.env }, input);
  // The entries the commit changed, set in the user's index as the commit has them: every other entry keeps
  // its flags and stat data, nothing outside the commit's change is touched, and no file is read again.
  const setIndex = (info: string) =>
    info === ""
      ? Promise.resolve("")
      : whileIndexLocked(() => git(["update-index", "-z", "--index-info"], info));
  await setIndex(forward);
  // Compare-and-swap: HEAD moves only from the commit the judge saw (no hook runs: core.hooksPath is off).
  const move = async () => {
    await git(["update-ref", "-m", `gantry: ${plan.subject}`, "HEAD", commit, parent || UNBORN]);
  };
  try {
    await (plan.moveBranch ? plan.moveBranch(commit, move) : move());
  } catch (error) {
    await setIndex(back);
    throw new CommitMismatch(
      `git update-ref (compare-and-swap) failed: ${(error as GitError).stderr || String(error)}`,
      { cause: error },
    );
  }
  return { commit, tree };
}

/**
 * `update-index --index-info` input from diff-tree's raw output (`:old new oldId newId status NUL path NUL`):
 * each changed path as the commit has it, and as HEAD had it (a mode of 0 removes the entry).
 */
function indexInfo(raw: string): { forward: string; back: string } {
  const parts = raw.split("\0");
  const forward: string[] = [];
  const back: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [oldMode = "", newMode = "", oldId = "", newId = ""] = (parts[i] ?? "")
      .replace(/^:/, "")
      .split(" ");
    const path = parts[i + 1] ?? "";
    forward.push(`${Number(newMode) === 0 ? "0" : newMode} ${newId}\t${path}\0`);
    back.push(`${Number(oldMode) === 0 ? "0" : oldMode} ${oldId}\t${path}\0`);
  }
  return { forward: forward.join(""), back: back.join("") };
}
