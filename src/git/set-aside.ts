import { runGit } from "./exec.js";
import { dirtyFiles } from "./start-check.js";

/**
 * Saves uncommitted work (tracked and untracked, gantry's files left out by `outside`) to the stash;
 * its ref, or undefined when there was none.
 */
export async function setAside(
  projectRoot: string,
  outside: readonly string[],
  message: string,
): Promise<string | undefined> {
  const dirty = await dirtyFiles(projectRoot, outside);
  if (dirty.length === 0) return undefined;
  await runGit(projectRoot, [
    "stash",
    "push",
    "--include-untracked",
    "-q",
    "-m",
    message,
    "--",
    ":(top)",
    ...outside,
  ]);
  return (await runGit(projectRoot, ["rev-parse", "stash@{0}"])).trim();
}
