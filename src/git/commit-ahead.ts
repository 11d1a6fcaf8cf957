import { largeIndexFile } from "./add-on-two-cores.js";
import { type PreparedCommit, prepareCommit } from "./commit-prepare.js";
import { committerIdentity } from "./committer.js";
import type { TreeScope } from "./judge.js";
import type { JudgedTreeCache } from "./judged-tree-cache.js";
import type { UserIndexBook } from "./user-index-book.js";

export interface CommitAheadInput {
  projectRoot: string;
  dirs: { top: string; gitDir: string; commonDir: string };
  /** The user's index file (`<git dir>/index`). */
  userIndex: string;
  cache: JudgedTreeCache;
  /** The private index's scope as it is now (undefined before the first judge). */
  scope: () => TreeScope | undefined;
  userIndexBook: UserIndexBook;
}

/**
 * The commit made ahead while completion's status runs (commit-prepare.ts); the next commit takes it.
 * Only where the user's index is large: on a small tree git's status takes a few milliseconds, less than
 * the tree, the commit object and the merge made ahead, and the commit would build its tree twice.
 */
export class CommitAhead {
  private ahead: Promise<PreparedCommit | undefined> | undefined;

  constructor(private readonly input: CommitAheadInput) {}

  /** Whether making the commit ahead pays here (the same size rule as the two-core add's). */
  pays(): boolean {
    return largeIndexFile(this.input.userIndex);
  }

  prepare(subject: string, contents: ReadonlyMap<string, Buffer>): void {
    this.ahead = this.make(subject, contents);
    this.ahead.catch(() => undefined);
  }

  /** The commit made ahead, once (a failed one is none): the commit checks it is the one to make. */
  async take(): Promise<PreparedCommit | undefined> {
    const prepared = this.ahead;
    this.ahead = undefined;
    return prepared?.catch(() => undefined);
  }

  private async make(subject: string, contents: ReadonlyMap<string, Buffer>) {
    const { projectRoot, dirs, cache, userIndex, userIndexBook } = this.input;
    const identity = await committerIdentity(projectRoot, dirs);
    const last = cache.last;
    const s = this.input.scope();
    // The tree the last judge left, while the private index holds it: what the recheck running meanwhile
    // confirms, or the commit drops this.
    if (!last || !s || s.index.head !== last.sha) return undefined;
    return prepareCommit(s, {
      judged: { sha: last.sha, tree: last.tree },
      subject,
      identity,
      contents,
      userIndex,
      userIndexWritten: userIndexBook.peekWritten(),
      userIndexBuffer: (size) => userIndexBook.buffer(size),
    });
  }
}
