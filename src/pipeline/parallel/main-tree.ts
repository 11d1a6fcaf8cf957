import { availableParallelism } from "node:os";
import { InputError } from "../../config/input-error.js";
import type { Config } from "../../config/schema.js";
import { runGit } from "../../git/exec.js";
import type { RunContext } from "../../stages/context.js";

/** Workers for a run: `--parallel`, else `execution.parallel`; 0 is one a core, at most `execution.parallelMax`. */
export function workerCount(requested: number | undefined, config: Config): number {
  const asked = requested ?? config.execution.parallel;
  return asked === 0 ? Math.min(availableParallelism(), config.execution.parallelMax) : asked;
}

/**
 * The main worktree follows the feature branch as stories merge (its files are written by gantry), so a
 * parallel run starts from a clean one. Files an interrupted parallel run left half-followed (it had
 * story worktrees left) are put back to HEAD; anything else uncommitted is the user's, and refused.
 */
export async function readyMainTree(run: RunContext, resuming: boolean): Promise<void> {
  const dirty = await run.git.dirtyFiles();
  if (dirty.length === 0) return;
  if (resuming) {
    await runGit(run.git.top, ["checkout", "-f", "HEAD", "--", ":(top)", ":(exclude,top).gantry"]).catch(
      () => undefined,
    );
    if ((await run.git.dirtyFiles()).length === 0) return;
  }
  const list = dirty.slice(0, 5).join(", ") + (dirty.length > 5 ? `, … (${dirty.length} files)` : "");
  throw new InputError(
    run.root,
    "working tree",
    `uncommitted changes (${list}); --parallel merges stories into the checked-out branch, so it starts from a clean tree: commit or stash them`,
    "GANTRY_E_REPO",
  );
}
