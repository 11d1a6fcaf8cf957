import { closeSync, constants, existsSync, ftruncateSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { addOnTwoCores, largeIndexFile } from "./add-on-two-cores.js";
import { FIRST_STEP_EXIT, runGit, runGitScript } from "./exec.js";
import { EMPTY_TREE } from "./git-objects.js";
import { headTreeWithoutGantry } from "./head-without-gantry.js";
import type { PrivateGit } from "./hermetic.js";
import { addListedInNode, listedChanges } from "./judge-listed.js";
import { differencesFromIndex } from "./judge-status.js";
import { knownJudgedDiff, rememberJudgedDiff, treesWithKnownDiff } from "./judged-changes.js";
import { rawTreeDiff, writeTreeFromIndex, writeTreeFromPlain } from "./judged-tree-in-node.js";
import type { PlainIndex } from "./plain-index.js";
import type { ReadBuffer } from "./reused-read.js";
import { escapingEntries } from "./tree-escapes.js";

export { LIST_FIRST_INDEX_BYTES } from "./judge-listed.js";
export const UNBORN = "0000000000000000000000000000000000000000";
export { EMPTY_TREE };

/** The judge will not judge this tree: what it would commit is not what is on disk. */
export class JudgeRefusal extends Error {
  override name = "JudgeRefusal";
}

export interface TreeScope {
  /** Where gantry runs, and its path from the repository's top level ("" or "packages/x/"). */
  cwd: string;
  /** The working tree's top level. */
  top: string;
  prefix: string;
  git: PrivateGit;
  /** What the private index holds now: HEAD's entries (without .gantry/) as of `head`, plus the last judge. */
  index: { head?: string };
  /** `base tree` → what escapes checked last: a tree judged again (verify, review, completion) is not re-read. */
  checked: Map<string, string[]>;
  /** Whether the last judged tree has HEAD's content (.gantry/ aside), from the judge's own diff-tree. */
  sameAsHead?: { head: string; tree: string; same: boolean };
  /** That diff-tree itself (`-r -z --no-renames`, raw, from the top level): the story's changes without another git. */
  lastDiff?: { head: string; tree: string; raw: string };
  /** When the last `git status` against the private index that finished started (judge-status.ts). */
  statusStarted?: number;
  /** The commit's read of the private index (commit-in-node.ts), one buffer kept for the run. */
  commitRead?: ReadBuffer;
  /** The judge's read of the private index (judged-tree-in-node.ts), one buffer kept for the run. */
  judgeRead?: ReadBuffer;
  /** Where the judge's add in node builds the private index it writes (add-in-node.ts), kept for the run. */
  addOut?: ReadBuffer;
  /**
   * The private index as the last judge read it to write `tree` in node (its entries are exactly that tree),
   * a view of `judgeRead`'s buffer: the commit of that tree takes its entries from here. Each judge drops it first.
   */
  judgedIndex?: { tree: string; plain: PlainIndex };
  /** The user's index file: its size says whether a first judge is worth hashing on two cores. */
  userIndex?: string;
  /** Run once while the next judge's git works (the run's start listing): node's main thread is idle then. */
  meanwhile?: () => void;
}

/** gantry's own files never count as the content being judged. */
export const GANTRY_DIR = ".gantry";

/** What each `exit 200+N` of the judge's script names. */
const JUDGE_STEPS = [
  "git read-tree (HEAD)",
  "git rm --cached (.gantry/)",
  "git add -A",
  "git write-tree",
  "git diff-tree (HEAD, the judged tree)",
];

/**
 * The judge in one shell ($1 HEAD or "" when unborn, or HEAD's tree without .gantry, $2 "1" to rebase the
 * index on HEAD, $3 .gantry/'s pathspec (none: $1 is without it already), $4 its exclusion, $5 what to compare with, $6 trees whose diff against $5 is known ("*": node
 * reads every diff, "-": node also writes the tree), then "paths" and the pathspecs to add when only those
 * are added): the tree on the first line, then diff-tree -z of HEAD and the tree for the escapes check (or
 * "=" for a known one).
 * A git started from a small shell costs less than one from node.
 * When HEAD moved since the index was last based on it, the index is rebuilt from HEAD's entries: -m keeps
 * the stat data of unchanged entries (no rehash), -i ignores the working tree, which `add` then reads.
 */
const JUDGE_SCRIPT = [
  `e=${FIRST_STEP_EXIT}; exclude=$4; compare=$5; known=$6`,
  `if [ "$2" = 1 ]; then`,
  `  if [ -n "$1" ]; then git read-tree -m -i "$1" || exit $((e+0)); else git read-tree --empty || exit $((e+0)); fi`,
  `  if [ -n "$3" ]; then git rm -r -q -f --cached --ignore-unmatch -- "$3" >/dev/null || exit $((e+1)); fi`,
  "fi",
  // $7 "paths": only the pathspecs after it (what git's status listed; none: nothing to add), else all.
  // (No exclusion with them: git then leaves out the files of an untracked folder named as `dir/`.)
  `if [ "$7" = paths ]; then shift 7; elif [ -n "$7" ]; then exit $((e+2)); else set -- ":(top)" "$exclude"; fi`,
  `if [ $# -gt 0 ] && ! err=$(git -c core.quotepath=off add -A -- "$@" 2>&1 >/dev/null); then`,
  `  case "$err" in *"are ignored by one of your .gitignore files"*) ;; *) printf '%s\\n' "$err" >&2; exit $((e+2)) ;; esac`,
  "fi",
  // "-" for $6: node writes the tree and reads the diff from the objects (judged-tree-in-node.ts).
  `[ "$known" = - ] && exit 0`,
  `tree=$(git write-tree) || exit $((e+3))`,
  `printf '%s\\n' "$tree"`,
  // A tree whose diff against $5 this process has already (judged-changes.ts): "=" instead of a diff-tree.
  // "*": node reads the diff from the objects whatever the tree (judged-tree-in-node.ts rawTreeDiff).
  `case " $known " in *" $tree "*|" * ") printf '=' ; exit 0 ;; esac`,
  `git diff-tree -r -z --no-renames "$compare" "$tree" -- ":(top)" "$exclude" || exit $((e+4))`,
].join("\n");

/**
 * The tree of the working tree as a fresh checkout of it would be: HEAD's entries (stat data kept from
 * the last judge, flags never copied), then every tracked and untracked, not ignored file as its bytes on
 * disk, .gantry/ left out. Refuses a tree whose new symlinks leave the repository or whose new nested
 * repositories are not registered submodules: their content would not be in the commit.
 */
export async function judgeTree(scope: TreeScope, head: string): Promise<string> {
  const gantry = `:(top)${scope.prefix}${GANTRY_DIR}`;
  const rebase = scope.index.head !== head;
  scope.index.head = undefined;
  scope.judgedIndex = undefined;
  // The private HEAD is the judged commit: a later stat check (`status`) compares against it, not against
  // an unborn branch (which would list every file).
  writePrivateHead(scope, head);
  const listed = rebase ? undefined : await listedChanges(scope, `${scope.prefix}${GANTRY_DIR}/`);
  const against = head === UNBORN ? EMPTY_TREE : head;
  const exclusion = `:(exclude,top)${scope.prefix}${GANTRY_DIR}`;
  const objects = scope.git.env.GIT_OBJECT_DIRECTORY;
  const inNode = objects !== undefined && indexExists(scope);
  const env =
    rebase && !existsSync(join(scope.git.dir, "index")) ? withoutPreload(scope.git.env) : scope.git.env;
  // Rebased on HEAD: the index read from HEAD's tree without .gantry when node can write that tree.
  const base =
    rebase && objects !== undefined && head !== UNBORN
      ? headTreeWithoutGantry(objects, head, scope.prefix)
      : undefined;
  // The first judge without a stat cache on a large tree: the index read from HEAD, every file hashed on both cores.
  const split =
    base && !inNode && largeIndexFile(scope.userIndex)
      ? await addOnTwoCores({
          top: scope.top,
          dir: scope.git.dir,
          env,
          base,
          exclusion,
          meanwhile: () => runMeanwhile(scope),
        })
      : "none";
  const script = async (known: string) => {
    const args = [
      base ?? (head === UNBORN ? "" : head),
      rebase && split === "none" ? "1" : "",
      base ? "" : gantry,
      exclusion,
      against,
      known,
    ];
    if (listed) args.push("paths", ...listed.pathspecs);
    return runGitScript(scope.cwd, JUDGE_SCRIPT, args, env, JUDGE_STEPS);
  };
  const known = objects !== undefined ? "*" : treesWithKnownDiff(scope.prefix, against).join(" ");
  const merged = split === "split" || split === "same";
  const treeInNode = inNode || merged;
  scope.judgeRead ??= {};
  // The listed paths added in node (no git at all) when it can give git's index, else git's add.
  const added = inNode && objects && listed ? addListedInNode(scope, objects, listed.paths) : undefined;
  // Nothing listed: the script would only start a shell to add nothing (node writes the tree).
  const nothing = inNode && listed?.paths.length === 0;
  const out = merged || added || nothing ? "" : await whileGitWorks(scope, script(inNode ? "-" : known));
  const seen: { plain?: PlainIndex } = added ? { plain: added } : {};
  const built =
    split === "same"
      ? base
      : added && objects
        ? writeTreeFromPlain(added, objects)
        : treeInNode && objects
          ? writeTreeFromIndex(join(scope.git.dir, "index"), objects, scope.judgeRead, seen)
          : undefined;
  // git writes the tree when node could not (an index it does not read whole, a mode a tree does not hold).
  const tree = treeInNode
    ? (built ?? (await runGit(scope.cwd, ["write-tree"], scope.git.env)).trim())
    : out.slice(0, out.indexOf("\n"));
  // A raw diff is empty or starts with ":": "=" is the script saying the diff is known (asked again if it
  // was dropped from the cache meanwhile); node reads it from the objects (changed folders only), else git.
  const rest = treeInNode ? "=" : out.slice(out.indexOf("\n") + 1);
  const diff =
    rest === "="
      ? (knownJudgedDiff(scope.prefix, against, tree) ??
        (objects ? rawTreeDiff(objects, against, tree, `${scope.prefix}${GANTRY_DIR}`) : undefined) ??
        (await runGit(
          scope.cwd,
          ["diff-tree", "-r", "-z", "--no-renames", against, tree, "--", ":(top)", exclusion],
          scope.git.env,
        )))
      : rest;
  rememberJudgedDiff(scope.prefix, against, tree, diff);
  scope.index.head = head;
  if (built && seen.plain) scope.judgedIndex = { tree: built, plain: seen.plain };
  // No entry differs from HEAD (.gantry/ aside): what "changed nothing" asks, answered already.
  scope.sameAsHead = { head, tree, same: diff === "" };
  scope.lastDiff = { head, tree, raw: diff };
  const key = `${head} ${tree}`;
  const problems = scope.checked.get(key) ?? (await escapingEntries(scope.cwd, scope.git.env, diff, tree));
  if (scope.checked.size > 64) scope.checked.clear();
  scope.checked.set(key, problems);
  if (problems.length > 0)
    throw new JudgeRefusal(`the working tree cannot be judged: ${problems.join("; ")}`);
  return tree;
}

/**
 * The run's first judge with no stat cache: the index read from HEAD has no stat data, so git's preload (an
 * lstat of every entry on threads, to mark the unchanged ones) can mark none, and `add` looks at each
 * entry again anyway: at 50,000 files a third of the judge's lstats (≈ 0.2 s of CPU) for nothing.
 */
function withoutPreload(env: Record<string, string>): Record<string, string> {
  return {
    ...env,
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.preloadIndex",
    GIT_CONFIG_VALUE_0: "false",
  };
}

/** `meanwhile`, once: what node does while git works. */
function runMeanwhile(scope: TreeScope): void {
  const work = scope.meanwhile;
  scope.meanwhile = undefined;
  try {
    work?.();
  } catch {
    // Only work done early: whoever needs it does it again.
  }
}

async function whileGitWorks<T>(scope: TreeScope, working: Promise<T>): Promise<T> {
  runMeanwhile(scope);
  return working;
}

/**
 * Whether node writes the tree and its diff (judged-tree-in-node.ts, at any size since round seven: the
 * folders no change reached come from the index's cache-tree). Not before a run's first judge, whose index
 * git builds from HEAD.
 */
function indexExists(scope: TreeScope): boolean {
  return statSync(join(scope.git.dir, "index"), { throwIfNoEntry: false }) !== undefined;
}

/**
 * Rewritten in place, never truncated to nothing first: a file truncated to zero and written again is
 * flushed to disk when it is closed (ext4's auto_da_alloc), a synchronous write twice a story for a file
 * only gantry's own git reads.
 */
export function writePrivateHead(scope: TreeScope, head: string): void {
  const content = Buffer.from(head === UNBORN ? "ref: refs/heads/gantry-private\n" : `${head}\n`);
  const fd = openSync(join(scope.git.dir, "HEAD"), constants.O_RDWR | constants.O_CREAT, 0o644);
  try {
    writeSync(fd, content, 0, content.length, 0);
    ftruncateSync(fd, content.length);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the working tree is still the tree last judged, by a stat pass against the private index:
 * tracked entries by their stat data, new files through git's untracked cache (a folder is read again only
 * when its mtime or ctime changed, and ctime cannot be set back). Anything changed, added or removed outside
 * .gantry/ says no. Cheap, but not a judge: the caller judges again when it says no.
 */
export async function unchangedSinceJudge(scope: TreeScope): Promise<boolean> {
  return (await differencesFromIndex(scope)).length === 0;
}
