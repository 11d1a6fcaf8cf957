/** One path the judge's diff-tree names: HEAD and the judged tree, no rename detection. */
export interface JudgedChange {
  status: "A" | "M" | "D" | "T";
  /** Relative to the project root. */
  path: string;
}

/**
 * The judge's `diff-tree -r -z --no-renames` (raw: `:mode mode sha sha S` NUL path NUL, paths from the top
 * level, .gantry/ left out) as changes relative to the project root: `prefix` stripped, paths outside it
 * dropped. Undefined for anything it does not expect, so that the caller asks git.
 */
export function parseJudgedDiff(raw: string, prefix: string): JudgedChange[] | undefined {
  const parts = raw.split("\0");
  const changes: JudgedChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i] ?? "";
    const path = parts[i + 1] ?? "";
    const status = meta.split(" ")[4];
    if (!meta.startsWith(":") || (status !== "A" && status !== "M" && status !== "D" && status !== "T"))
      return undefined;
    if (path === "" || !path.startsWith(prefix)) continue;
    changes.push({ status, path: path.slice(prefix.length) });
  }
  return changes;
}

/**
 * The judge's diff-trees of this process, raw, by HEAD and judged tree (and the project's prefix, which the
 * pathspec depends on). Both are object ids, and the objects they name never change, so neither does the
 * diff: a tree judged again (another worker's command ran meanwhile, a recheck) needs no second diff-tree.
 */
const judgedDiffs = new Map<string, string>();
const MAX_JUDGED_DIFFS = 64;
const diffKey = (prefix: string, head: string, tree: string) => `${prefix}\0${head}\0${tree}`;

export function knownJudgedDiff(prefix: string, head: string, tree: string): string | undefined {
  return judgedDiffs.get(diffKey(prefix, head, tree));
}

export function rememberJudgedDiff(prefix: string, head: string, tree: string, raw: string): void {
  if (judgedDiffs.size >= MAX_JUDGED_DIFFS) judgedDiffs.delete(judgedDiffs.keys().next().value as string);
  judgedDiffs.set(diffKey(prefix, head, tree), raw);
}

/** The trees whose diff against `head` is known, for the judge's script to skip its diff-tree for them. */
export function treesWithKnownDiff(prefix: string, head: string): string[] {
  const start = diffKey(prefix, head, "");
  const trees: string[] = [];
  for (const key of judgedDiffs.keys()) if (key.startsWith(start)) trees.push(key.slice(start.length));
  return trees;
}
