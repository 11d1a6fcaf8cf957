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
  /** Settles once what must be durable before the branch moves is: awaited before the user's index is touched. */
  ready?: Promise<unknown>;
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
 * ("" unborn), $3 gantry's folder, $4 subject. Prints the commit and its tree.
 */
const SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  `git read-tree "$1" || exit $e`,
  // HEAD's .gantry/ by name; only when that fails is it asked whether HEAD has one at all.
  `if [ -n "$2" ] && ! git read-tree --prefix="$3/" "$2:$3" 2>/dev/null && git cat-file -e "$2:$3" 2>/dev/null; then exit $((e+1)); fi`,
  `err=$(git add -A -- ":(top,glob)$3/features/*/prd.json" 2>&1 >/dev/null) || case "$err" in *"are ignored by one of your .gitignore files"*|*"did not match any files"*) ;; *) printf '%s\\n' "$err" >&2; exit $((e+2)) ;; esac`,
  `tree=$(git write-tree) || exit $((e+3))`,
  `if [ -n "$2" ]; then commit=$(git commit-tree "$tree" -p "$2" -m "$4") || exit $((e+4)); else commit=$(git commit-tree "$tree" -m "$4") || exit $((e+4)); fi`,
  `printf '%s %s\\n' "$commit" "$tree"`,
].join("\n");

/**
 * Commits exactly the judged tree (plus gantry's files) with git's plumbing, in the order that leaves the
 * repository consistent at every step: the commit object first (nothing published), then the user's index
 * set to it for the paths the commit changes (git reset, which keeps every other entry and its flags as
 * they were, waiting within a bound for another git's lock), then the branch moved by compare-and-swap
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
    [plan.judged.tree, parent, `${scope.prefix}${GANTRY_DIR}`, plan.subject],
    { ...scope.env, GIT_INDEX_FILE: plan.commitIndex },
    STEPS,
  );
  const [commit = "", tree = ""] = out.trim().split(/\s+/);
  await plan.ready;
  const git = (args: string[]) => runGit(plan.top, args, { ...scope.env });
  // The project's entries of the user's index set to the commit's: git reset keeps every entry that does not
  // differ, with its flags and stat data; nothing outside the project is touched.
  const project = `:(top)${scope.prefix}`;
  const setIndex = (to: string) =>
    whileIndexLocked(() =>
      to === ""
        ? git(["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", project])
        : git(["reset", "-q", to, "--", project]),
    );
  await setIndex(commit);
  try {
    // Compare-and-swap: HEAD moves only from the commit the judge saw (no hook runs: core.hooksPath is off).
    await git(["update-ref", "-m", `gantry: ${plan.subject}`, "HEAD", commit, parent || UNBORN]);
  } catch (error) {
    await setIndex(parent);
    throw new CommitMismatch(
      `git update-ref (compare-and-swap) failed: ${(error as GitError).stderr || String(error)}`,
      { cause: error },
    );
  }
  return { commit, tree };
}
