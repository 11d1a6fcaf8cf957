import type { GitRepo } from "./git-repo.js";
import type { GitSnapshot } from "./tamper-snapshot.js";

/**
 * The refs gantry itself moves while stories run side by side in worktrees (story branches, the feature
 * branch, the stash, `refs/gantry/...`), with the value it last gave each. They share one ref store, so a
 * session's tamper check in one worktree would take another worker's commit or a merge for the agent's
 * doing, and put it back. Every such move happens inside `exclusive`, and a session's check compares
 * inside it too: a ref that holds what gantry put there is gantry's, any other change is the agent's.
 */
export class RefBook {
  private readonly latest = new Map<string, string | undefined>();
  private queue: Promise<unknown> = Promise.resolve();

  /** Runs `work` with no other ref move or tamper comparison of this run in between. */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** gantry set `ref` to `value` (undefined: deleted it). */
  record(ref: string, value: string | undefined): void {
    this.latest.set(ref, value);
  }

  /**
   * `before` as gantry's own moves since would have left it: each ref that now holds what gantry last put
   * there counts as unchanged.
   */
  rebase(before: GitSnapshot, now: Map<string, string>): GitSnapshot {
    const refs = new Map(before.refs);
    for (const [ref, value] of this.latest) {
      if (now.get(ref) !== value) continue;
      if (value === undefined) refs.delete(ref);
      else refs.set(ref, value);
    }
    return { ...before, refs };
  }
}

/**
 * A worktree's repository for one worker: the session check compares against `before` rebased on the
 * book, and the worker's own ref moves (its commit, a stash) are recorded in it.
 */
export function bookedRepo(inner: GitRepo, book: RefBook, branch: string): GitRepo {
  return {
    ...inner,
    restoreSince: (before) =>
      book.exclusive(async () => {
        const now = await inner.snapshot();
        return inner.restoreSince(book.rebase(before, now.refs));
      }),
    // Only the branch move needs the book: the commit object and the worktree's own index are this worker's.
    commitJudged: (judged, subject, options) =>
      inner.commitJudged(judged, subject, {
        ...options,
        moveBranch: (commit, move) =>
          book.exclusive(async () => {
            await move();
            book.record(branch, commit);
          }),
      }),
    setAside: (message) =>
      book.exclusive(async () => {
        const stash = await inner.setAside(message);
        if (stash) book.record("refs/stash", stash);
        return stash;
      }),
  };
}
