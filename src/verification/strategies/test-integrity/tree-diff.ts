import { runGit } from "../../../git/exec.js";
import { EMPTY_TREE } from "../../../git/judge.js";
import { SKIPPED_DIRS } from "../../project-files.js";
import { type FileLines, patchLines } from "./patch-lines.js";

/** git's empty tree: the base of a story that started before the first commit. */
export { EMPTY_TREE };

/** One path the story changed between its base and the judged tree (renames detected). */
export interface TreeChange {
  status: "A" | "M" | "D" | "R" | "C" | "T";
  /** The path at base (equal to `path` unless renamed or copied). */
  from: string;
  /** The path now (the old path for a deletion). */
  path: string;
}

/**
 * What changed from `base` (a commit or tree) to `tree`, relative to the project root, gantry's own and
 * dependency directories left out. Both sides are git objects: the judged tree, not the working files.
 * `.gantry/` is left out of the comparison itself: the judged tree has none, so each of its files would
 * show as deleted and could pair with an added file as a rename. `known`: the judge's own diff of the same
 * two (no rename detection); when it deletes nothing no rename is possible, and it is the answer.
 */
export async function treeChanges(
  root: string,
  base: string,
  tree: string,
  known?: readonly { status: "A" | "M" | "D" | "T"; path: string }[],
): Promise<TreeChange[]> {
  if (known && !known.some((change) => change.status === "D"))
    return known
      .filter((c) => !isSkipped(c.path))
      .map((c) => ({ status: c.status, from: c.path, path: c.path }));
  const out = await runGit(root, [
    "diff",
    "--name-status",
    "-M",
    "-z",
    "--relative",
    base,
    tree,
    "--",
    ":(exclude).gantry",
  ]);
  // Records end with a NUL each: the last field is empty. A code with a similarity score (R100, C075)
  // is followed by two paths, any other by one.
  const fields = out.split("\0");
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; ) {
    const code = fields[i++] as string;
    const status = code[0] as TreeChange["status"];
    const from = fields[i++] as string;
    const path = code.length > 1 ? (fields[i++] as string) : from;
    if (!isSkipped(from) || !isSkipped(path)) changes.push({ status, from, path });
  }
  return changes;
}

/** Past this many paths the whole diff is read and filtered, rather than an argument list that long. */
const MAX_PATHSPEC = 2000;

/**
 * Added and removed lines of `paths` (paths now, renames followed) between `base` and `tree`. A renamed
 * file is diffed against its old path, so only what the story changed in it counts as added: git pairs a
 * rename only when both names are in the pathspec. `changes` are the story's changes when the caller has
 * them (else they are asked of git).
 */
export async function changedLines(
  root: string,
  base: string,
  tree: string,
  paths: readonly string[],
  changes?: readonly TreeChange[],
  maxPathspec = MAX_PATHSPEC,
): Promise<Map<string, FileLines>> {
  if (paths.length === 0) return new Map();
  const wanted = new Set(paths);
  const oldNames = (changes ?? (await treeChanges(root, base, tree)))
    .filter((c) => wanted.has(c.path))
    .map((c) => c.from);
  const names = [...new Set([...paths, ...oldNames])];
  const out = await runGit(root, [
    "diff",
    "-U0",
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
    base,
    tree,
    "--",
    ...(names.length > maxPathspec ? [":(exclude).gantry"] : names.map((path) => `:(literal)${path}`)),
  ]);
  return patchLines(out, wanted);
}

/** A file's text at a commit or tree, relative to the project root; undefined when it is not there. */
export async function readAt(root: string, rev: string, path: string): Promise<string | undefined> {
  return runGit(root, ["show", `${rev}:./${path}`]).catch(() => undefined);
}

/**
 * The changes that touch a configuration file by `isConfig`, with its text at base and in the judged tree
 * (undefined: absent). A config renamed to a name no tool reads is a config deleted; a file renamed to a
 * config's name, one added. `path` is the config's name now, or the name it had when it is gone.
 */
export async function configTexts(
  input: { root: string; base: string; tree: string; changes: readonly TreeChange[] },
  isConfig: (path: string) => boolean,
): Promise<{ path: string; before: string | undefined; after: string | undefined }[]> {
  const texts = [];
  for (const change of input.changes) {
    const was = change.status !== "A" && isConfig(change.from);
    const is = change.status !== "D" && isConfig(change.path);
    if (!was && !is) continue;
    texts.push({
      path: is ? change.path : change.from,
      before: was ? await readAt(input.root, input.base, change.from) : undefined,
      after: is ? await readAt(input.root, input.tree, change.path) : undefined,
    });
  }
  return texts;
}

function isSkipped(path: string): boolean {
  return path.split("/").some((part) => SKIPPED_DIRS.has(part));
}
