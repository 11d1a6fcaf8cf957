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
