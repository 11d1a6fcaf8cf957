import { runGit } from "./exec.js";

/** The most pairs kept: past it the answers are dropped and asked again. */
const MAX_PAIRS = 64;

/**
 * Whether a commit holds exactly a judged tree's content (.gantry/ aside): what a judge's own diff-tree
 * said, else git's `diff-tree --quiet`. Kept only for two object ids (a name like HEAD is asked each time):
 * for those the answer never changes.
 */
export class SameContents {
  private readonly known = new Map<string, boolean>();

  /** `outside`: the pathspecs that leave gantry's own files out. */
  constructor(
    private readonly projectRoot: string,
    private readonly outside: readonly string[],
  ) {}

  /** What a judge found comparing HEAD (`commit`) with the tree it wrote. */
  remember(commit: string, tree: string, same: boolean): void {
    this.keep(`${commit} ${tree}`, same);
  }

  async same(commit: string, tree: string): Promise<boolean> {
    const key = /^[0-9a-f]{40,64}$/.test(commit) ? `${commit} ${tree}` : undefined;
    const known = key ? this.known.get(key) : undefined;
    if (known !== undefined) return known;
    let same: boolean;
    try {
      await runGit(this.projectRoot, [
        "diff-tree",
        "-r",
        "--quiet",
        commit,
        tree,
        "--",
        ":(top)",
        ...this.outside,
      ]);
      same = true;
    } catch {
      same = false;
    }
    if (key) this.keep(key, same);
    return same;
  }

  private keep(key: string, same: boolean): void {
    if (this.known.size >= MAX_PAIRS) this.known.clear();
    this.known.set(key, same);
  }
}
