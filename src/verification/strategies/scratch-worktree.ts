import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runGit } from "../../git/exec.js";
import { addWorktree, removeWorktree } from "../../git/worktree.js";
import { mirrorNodeModules } from "../../process/dependency-mirror.js";
import { ownedFolder } from "../../process/owned-folder.js";
import { gantryScratchDirectory } from "../../process/state-directory.js";

/**
 * A detached git worktree of one commit in gantry's scratch directory (hidden from every session, so no
 * session of a `--parallel` run can write into it), for running something against the code as it was. `git worktree add` writes only under .git/worktrees: the user's index, HEAD and working tree
 * are not touched. The user's hooks are not run for it (core.hooksPath is pointed at nothing).
 */
export interface ScratchWorktree {
  /** The worktree's top directory. */
  top: string;
  /** The project's directory inside it (the project may be a subdirectory of the repository). */
  projectDir: string;
  /** Removes the worktree and its metadata; never throws, safe to call twice. */
  remove(): Promise<void>;
}

export async function addScratchWorktree(projectRoot: string, commit: string): Promise<ScratchWorktree> {
  if (!/^[0-9a-f]{4,64}$/i.test(commit)) throw new TypeError(`not a commit: ${JSON.stringify(commit)}`);
  const [topRaw = "", commonDir = "", prefix = ""] = (
    await runGit(projectRoot, [
      "rev-parse",
      "--show-toplevel",
      "--path-format=absolute",
      "--git-common-dir",
      "--show-prefix",
    ])
  )
    .replace(/\n$/, "")
    .split("\n");
  const userTop = realpathSync(topRaw);
  // The folder's own name is the name of git's record of the worktree: unique, so no two workers' scratch
  // worktrees (nor a scratch worktree and a story's) ever share one.
  const parent = gantryScratchDirectory();
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const top = ownedFolder(parent, "gantry-scratch");
  let added = false;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    // Our dependency links first, so nothing below ever walks into the user's node_modules.
    for (const dir of new Set([top, join(top, prefix)])) {
      try {
        rmSync(join(dir, "node_modules"), { recursive: true, force: true });
      } catch {
        // removed with the rest below
      }
    }
    if (added) await removeWorktree(projectRoot, commonDir, top).catch(() => undefined);
    rmSync(top, { recursive: true, force: true });
  };
  try {
    await addWorktree({ cwd: projectRoot, commonDir, path: top, ref: commit, detach: true });
    added = true;
    const projectDir = join(top, prefix);
    mkdirSync(projectDir, { recursive: true });
    mirrorNodeModules(userTop, [join(userTop, prefix), userTop], top);
    return { top, projectDir, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * A commit of `tree` (a judged tree, not committed yet) on top of `parent`, referenced by nothing: what a
 * scratch worktree of the tree being judged checks out. The user's refs, index and HEAD are not touched.
 */
export async function commitOfTree(root: string, tree: string, parent?: string): Promise<string> {
  const identity = {
    GIT_AUTHOR_NAME: "gantry",
    GIT_AUTHOR_EMAIL: "gantry@localhost",
    GIT_COMMITTER_NAME: "gantry",
    GIT_COMMITTER_EMAIL: "gantry@localhost",
  };
  const parents = parent ? ["-p", parent] : [];
  const out = await runGit(
    root,
    ["commit-tree", tree, ...parents, "-m", "gantry: the tree being judged"],
    identity,
  );
  return out.trim();
}
