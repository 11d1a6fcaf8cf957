import type { Judged } from "../model/ledger.js";
import { FIRST_STEP_EXIT, runGitScript } from "./exec.js";
import { escapingEntries } from "./tree-escapes.js";

export const UNBORN = "0000000000000000000000000000000000000000";
/** The tree with no entries (sha1): what an unborn HEAD holds. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
/** gantry's own files never count as the content being judged. */
export const GANTRY_DIR = ".gantry";

/** The judge will not judge this tree: what it would commit is not what is on disk. */
export class JudgeRefusal extends Error {
  override name = "JudgeRefusal";
}

/** Where the judge works: the project's place in its repository and the run's private index. */
export interface JudgeScope {
  /** The project root, and its path from the repository's top level ("" or "packages/x/"). */
  cwd: string;
  prefix: string;
  /** The user's index file (`<git dir>/index`), copied as the judge's starting point. */
  userIndex: string;
  /** The judge's own index, under gantry's state directory. */
  privateIndex: string;
  /** The run's git settings (settings.ts). */
  env: Readonly<Record<string, string>>;
}

const STEPS = [
  "cp (the user's index)",
  "git reset (outside the project)",
  "git add -A",
  "git rm --cached (.gantry/)",
  "git write-tree",
  "git diff-tree",
];

/**
 * What `git add -A` would stage for the project, in a copy of the user's index (its skip-worktree and
 * assume-unchanged entries, its stat data with the file's time, so git's racy-entry rule holds): git
 * applies the repository's own settings (fileMode, symlinks, autocrlf, attributes, sparse checkout).
 * Outside the project's folder the copy is set back to HEAD: nothing there is judged or committed.
 * $1 user index, $2 private index, $3 HEAD ("" unborn), $4 the project's path ("" at the top), $5 gantry's
 * folder, $6 "1" to keep gantry's folder as the index has it. Prints the tree, then diff-tree -z against HEAD.
 */
const SCRIPT = [
  `e=${FIRST_STEP_EXIT}`,
  `if [ -f "$1" ]; then cp -p "$1" "$2" || exit $e; else rm -f "$2" || exit $e; fi`,
  `GIT_INDEX_FILE="$2"; export GIT_INDEX_FILE`,
  `if [ -n "$4" ] && [ -n "$3" ]; then git reset -q "$3" -- ":(top)" ":(top,exclude)$4" >/dev/null || exit $((e+1)); fi`,
  `git add -A -- ":(top)$4" ":(top,exclude)$5" || exit $((e+2))`,
  `if [ "$6" != 1 ]; then git rm -r -q -f --cached --ignore-unmatch -- ":(top)$5" >/dev/null || exit $((e+3)); fi`,
  `tree=$(git write-tree) || exit $((e+4))`,
  `printf '%s\\n' "$tree"`,
  `base=$3; [ -n "$base" ] || base=$(git hash-object -t tree /dev/null) || exit $((e+5))`,
  `git diff-tree -r -z --no-renames "$base" "$tree" -- ":(top)$4" ":(top,exclude)$5" || exit $((e+5))`,
].join("\n");

/**
 * HEAD and the tree of the project's working tree as `git add -A` would stage it, .gantry/ left out. Throws
 * JudgeRefusal for content a commit would not carry: a symlink out of the repository, a nested repository
 * that is not a submodule. `keepGantry` (setting work aside): .gantry/ as the index has it, and no refusal.
 */
export async function judgeTree(scope: JudgeScope, head: string, keepGantry = false): Promise<Judged> {
  const gantry = `${scope.prefix}${GANTRY_DIR}`;
  const out = await runGitScript(
    scope.cwd,
    SCRIPT,
    [
      scope.userIndex,
      scope.privateIndex,
      head === UNBORN ? "" : head,
      scope.prefix.replace(/\/$/, ""),
      gantry,
      keepGantry ? "1" : "",
    ],
    { ...scope.env, GIT_INDEX_FILE: scope.privateIndex },
    STEPS,
  );
  const newline = out.indexOf("\n");
  const tree = out.slice(0, newline);
  const raw = out.slice(newline + 1);
  if (!keepGantry && / (120000|160000) /.test(raw)) {
    const problems = await escapingEntries(scope.cwd, { ...scope.env }, raw, tree);
    if (problems.length > 0)
      throw new JudgeRefusal(`the working tree cannot be judged: ${problems.join("; ")}`);
  }
  return { sha: head, tree };
}
