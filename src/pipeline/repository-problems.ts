import { InputError } from "../config/input-error.js";
import type { GitRepo } from "../git/git-repo.js";

/** `gantry run` refuses to start on uncommitted changes (unless resuming, or with --allow-dirty). */
export function uncommittedChanges(root: string, dirty: readonly string[]): InputError {
  const list = dirty.slice(0, 5).join(", ") + (dirty.length > 5 ? `, … (${dirty.length} files)` : "");
  return new InputError(
    root,
    "working tree",
    `uncommitted changes (${list}); commit or stash them, or pass --allow-dirty`,
    "GANTRY_E_REPO",
  );
}

/** The project is in no git repository: say how to make one, since every story is a commit. */
export function notARepository(root: string, error: unknown): InputError | undefined {
  if (!/not a git repository/i.test(String((error as Error)?.message ?? error))) return undefined;
  return new InputError(
    root,
    "git",
    "not a git repository; gantry commits each story to a branch: make it one with `git init && git add -A && git commit -m start`",
    "GANTRY_E_REPO",
  );
}

/** The branch the stories are committed to; an InputError when git has no identity to commit with or HEAD is detached. */
export async function commitBranch(git: GitRepo, root: string): Promise<string> {
  const identity = await git.commitIdentityProblem();
  if (identity) throw new InputError(root, "git", identity, "GANTRY_E_REPO");
  const branch = await git.branch();
  if (branch === undefined) {
    throw new InputError(
      root,
      "git",
      "HEAD is detached; check out a branch for gantry to commit the stories to",
      "GANTRY_E_REPO",
    );
  }
  return branch;
}
