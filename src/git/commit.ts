import type { Judged } from "../model/ledger.js";
import { FIRST_STEP_EXIT, runGit, runGitScript } from "./exec.js";
import { GANTRY_DIR, type TreeScope, UNBORN, writePrivateHead } from "./judge.js";

/** The commit gantry made is not what HEAD holds afterwards: a hook or another process moved it. */
export class CommitMismatch extends Error {
  override name = "CommitMismatch";
}

export interface CommitPlan {
  judged: Judged;
  subject: string;
  /** The private index holds exactly the judged tree (the judge just built it): it is not read again. */
  indexHoldsTree?: boolean;
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

/** What each `exit 200+N` of the script names. */
const STEPS = [
  "git read-tree (the judged tree)",
  "git read-tree (HEAD's .gantry/)",
  "git add (prd.json)",
  "git write-tree",
  "git commit-tree",
  "git update-ref (compare-and-swap)",
  "git read-tree (the user's index)",
  "git rm --cached (the private index)",
  "git rev-parse HEAD",
  "git ls-files -v (the user's index flags)",
];

/**
 * The whole commit in one shell ($1 judged tree, $2 judged HEAD or "", $3 .gantry's path, $4 subject,
 * $5 "1" when the private index already holds the judged tree):
 * a git started from a small shell costs far less than one forked from node. `real` runs git on the
 * user's repository (the private variables dropped), hooks off.
 */
const SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  // A subshell rather than `env -u`: a fork of the shell costs far less than one more program to exec.
  `real() ( unset ${PRIVATE.join(" ")}; exec git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@" )`,
  `if [ "$5" != 1 ]; then git read-tree -m -i "$1" || exit $((e+0)); fi`,
  `if [ -n "$2" ] && g=$(git rev-parse --verify -q "$2:$3" 2>/dev/null); then git read-tree --prefix="$3/" "$g" || exit $((e+1)); fi`,
  `err=$(git add -A -- ":(top,glob)$3/features/*/prd.json" 2>&1 >/dev/null) || case "$err" in *"are ignored by one of your .gitignore files"*) ;; *) printf '%s\\n' "$err" >&2; exit $((e+2)) ;; esac`,
  `tree=$(git write-tree) || exit $((e+3))`,
  `if [ -n "$2" ]; then commit=$(git commit-tree "$tree" -p "$2" -m "$4") || exit $((e+4)); else commit=$(git commit-tree "$tree" -m "$4") || exit $((e+4)); fi`,
  `real update-ref -m "gantry: $4" HEAD "$commit" "\${2:-0000000000000000000000000000000000000000}" || exit $((e+5))`,
  `real read-tree -m -i "$commit" || exit $((e+6))`,
  `git rm -r -q -f --cached --ignore-unmatch -- ":(top)$3" || exit $((e+7))`,
  `heads=$(real rev-parse HEAD "HEAD^{tree}") || exit $((e+8))`,
  `printf '%s %s %s\\n' "$commit" "$tree" "$heads"`,
  // The flags of the index just written: the next session's tamper snapshot starts from them (a fork fewer).
  `real ls-files -v -z -- ":(top)" || exit $((e+9))`,
].join("\n");

/**
 * Commits exactly the judged tree, plus gantry's own files as HEAD has them (no edit to the config made
 * during the run is committed) and the features' prd.json, without staging the working tree again:
 * commit-tree on that tree, then the branch moved only if it still points where the judge saw it
 * (compare-and-swap), with no hook run. The user's index is then reset to the new commit. Returns the
 * commit id; throws CommitMismatch when HEAD is not it afterwards.
 */
export async function commitJudged(scope: TreeScope, plan: CommitPlan): Promise<string> {
  const gantry = `${scope.prefix}${GANTRY_DIR}`;
  scope.index.head = undefined;
  scope.identity ??= await committerIdentity(scope.cwd);
  const parent = plan.judged.sha === UNBORN ? "" : plan.judged.sha;
  const out = await runGitScript(
    scope.cwd,
    SCRIPT,
    [plan.judged.tree, parent, gantry, plan.subject, plan.indexHoldsTree ? "1" : ""],
    { ...scope.git.env, ...scope.identity },
    STEPS,
  );
  // "commit tree HEAD\nHEAD's tree\n", then the index flags (ls-files -v -z).
  const [first = "", second = "", ...flags] = out.split("\n");
  const [commit = "", tree = "", head] = first.trim().split(/\s+/);
  const headTree = second.trim();
  scope.userIndexFlags = flags.join("\n");
  // The private index holds the commit's tree without .gantry/: what the next judge starts from.
  scope.index.head = commit;
  writePrivateHead(scope, commit);
  if (head !== commit || headTree !== tree)
    throw new CommitMismatch(
      `HEAD is ${head?.slice(0, 12)} after gantry committed ${commit.slice(0, 12)}: a hook or another process moved the branch`,
    );
  return commit;
}

/** Who commits: the repository's own identity, as `git commit` would take it (the private git has no config). */
async function committerIdentity(cwd: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [role, prefix] of [
    ["GIT_AUTHOR_IDENT", "GIT_AUTHOR"],
    ["GIT_COMMITTER_IDENT", "GIT_COMMITTER"],
  ] as const) {
    const ident = (await runGit(cwd, ["var", role])).trim();
    const match = /^(.*) <([^>]*)> (\d+ [+-]\d{4})$/.exec(ident);
    if (!match)
      throw new Error(`git var ${role} printed ${JSON.stringify(ident)}, not "name <email> time zone"`);
    env[`${prefix}_NAME`] = match[1] ?? "";
    env[`${prefix}_EMAIL`] = match[2] ?? "";
  }
  return env;
}
