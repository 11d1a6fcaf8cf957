import { InputError } from "../config/input-error.js";

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
