import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Judged } from "../model/ledger.js";
import { runGit } from "./exec.js";
import { whileIndexLocked } from "./index-lock.js";
import { UNBORN } from "./judge.js";

export interface SetAsideInput {
  top: string;
  env: Readonly<Record<string, string>>;
  /** The project's tree with gantry's folder as the index has it (judge with keepGantry). */
  judged: Judged;
  headTree: string;
  message: string;
  /** The project's tree as HEAD has it, judged again after the work tree was put back. */
  rejudge: () => Promise<Judged>;
}

/** How many times the put-back is tried while something keeps changing the tree (a watcher). */
const PUT_BACK_TRIES = 3;

/**
 * Saves uncommitted work as a stash entry (`git stash list`, `git stash apply` bring it back) before
 * anything on disk is touched, then puts the project's files back as HEAD has them. The entry is made
 * with plumbing from the judged tree (tracked and untracked, not ignored), so it either exists whole or
 * not at all; the put-back is checked by judging again. Returns the stash commit, or undefined when there
 * was nothing to save.
 */
export async function setAside(input: SetAsideInput): Promise<string | undefined> {
  const { judged, top } = input;
  if (judged.sha === UNBORN || judged.tree === input.headTree) return undefined;
  const git = (args: string[], stdin?: string) =>
    runGit(top, args, { ...input.env, GIT_LITERAL_PATHSPECS: "1" }, stdin);
  const indexCommit = (
    await git(["commit-tree", input.headTree, "-p", judged.sha, "-m", `index on ${input.message}`])
  ).trim();
  const stash = (
    await git([
      "commit-tree",
      judged.tree,
      "-p",
      judged.sha,
      "-p",
      indexCommit,
      "-m",
      `On gantry: ${input.message}`,
    ])
  ).trim();
  await git(["stash", "store", "-m", input.message, stash]);
  for (let tries = 0; tries < PUT_BACK_TRIES; tries++) {
    const now = tries === 0 ? judged : await input.rejudge();
    if (now.tree === input.headTree) return stash;
    await putBack(git, top, now.sha, now.tree);
  }
  if ((await input.rejudge()).tree !== input.headTree)
    throw new Error(
      `the work was saved as ${stash.slice(0, 12)} (git stash list), but the files kept changing while gantry put HEAD's back`,
    );
  return stash;
}

/** The files that differ between HEAD and `tree`: HEAD's restored (index too), the added ones removed. */
async function putBack(
  git: (args: string[], stdin?: string) => Promise<string>,
  top: string,
  head: string,
  tree: string,
): Promise<void> {
  const out = await git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", head, tree]);
  const parts = out.split("\0");
  const restore: string[] = [];
  const added: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i] ?? "";
    const path = parts[i + 1] ?? "";
    if (status === "A") {
      rmSync(join(top, path), { force: true, recursive: true });
      added.push(path);
    } else restore.push(path);
  }
  if (added.length > 0)
    await whileIndexLocked(() =>
      git(
        ["rm", "-q", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"],
        added.join("\0"),
      ),
    );
  if (restore.length > 0)
    await whileIndexLocked(() =>
      git(["checkout", "-q", head, "--pathspec-from-file=-", "--pathspec-file-nul"], restore.join("\0")),
    );
}
