import type { Judged } from "../model/ledger.js";
import type { Activity } from "../process/activity.js";
import type { JudgeOptions } from "./git-repo.js";

/**
 * The last judged tree, kept while nothing gantry started could have changed the working tree since
 * (process/activity.ts) and HEAD is the same: a tree judged again with nothing run in between (verify, then review) is not
 * built again. `recheck` always looks at the disk; `deferStatCheck` also keeps it across commands that
 * only read (tests, lint), since completion's recheck holds the commit to the disk anyway.
 */
export class JudgedTrees {
  private last: { judged: Judged; seen: Activity } | undefined;

  constructor(private readonly now: () => Activity) {}

  /** `head`: HEAD now; a tree judged on another HEAD is never kept. */
  async judge(
    head: string,
    build: (head: string) => Promise<Judged>,
    options: JudgeOptions = {},
  ): Promise<Judged> {
    const seen = this.now();
    const last = this.last;
    if (
      last &&
      last.judged.sha === head &&
      !options.recheck &&
      seen.running === 0 &&
      this.unchanged(last.seen, seen, options)
    )
      return last.judged;
    const judged = await build(head);
    const after = this.now();
    // A command that started while git read the tree: the next judge looks again.
    this.last = after.started === seen.started && after.running === 0 ? { judged, seen } : undefined;
    return judged;
  }

  forget(): void {
    this.last = undefined;
  }

  /** The tree just committed as `commit`: the working tree is that tree on the new HEAD, with nothing run since. */
  carry(judged: Judged): void {
    const seen = this.now();
    this.last = seen.running === 0 ? { judged, seen } : undefined;
  }

  private unchanged(before: Activity, now: Activity, options: JudgeOptions): boolean {
    if (now.started === before.started) return true;
    return options.deferStatCheck === true && now.writers === before.writers && now.runningWriters === 0;
  }
}
