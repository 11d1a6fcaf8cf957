import { join } from "node:path";
import { bookedRepo, type RefBook } from "../../git/ref-book.js";
import { openRepo } from "../../git/repo.js";
import { bwrapArgs, sandboxLayout } from "../../process/sandbox.js";
import type { RunContext } from "../../stages/context.js";
import { type StoryWorktree, type WorktreeHome, worktreeLocations } from "./story-worktrees.js";

/**
 * The run as one worker sees it: the same bus, ledger, story store, cost, state and requests (so caps,
 * `maxIterations`, Ctrl-C and every subscriber hold across workers), but its own tree, git and sandbox.
 * Its sessions may write its worktree alone: the repository and the other worktrees are read-only.
 */
export async function workerContext(
  run: RunContext,
  home: WorktreeHome,
  book: RefBook,
  worktree: StoryWorktree,
): Promise<{ ctx: RunContext; close: () => void }> {
  const root = join(worktree.path, home.prefix);
  const inner = await openRepo(root, worktreeLocations(home, worktree));
  const git = bookedRepo(inner, book, worktree.branch);
  const bwrap = run.sandbox?.[0];
  const sandbox = bwrap
    ? bwrapArgs(
        { ...sandboxLayout(root, process.env, run.sessionHome), readOnlyUnder: [home.top, home.commonDir] },
        bwrap,
      )
    : undefined;
  const ctx: RunContext = { ...run, root, git, mergesBack: true, ...(sandbox ? { sandbox } : {}) };
  return { ctx, close: () => inner.close() };
}
