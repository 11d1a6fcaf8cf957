import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RefBook } from "../../../src/git/ref-book.js";
import {
  earlierFailedRef,
  failedRef,
  openStoryWorktree,
  retireStoryWorktree,
  worktreeHome,
  worktreeLocations,
} from "../../../src/pipeline/parallel/story-worktrees.js";
import { git, write } from "../../support/fixture-repo.js";

async function fixture() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-story-worktrees-")));
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "t");
  git(root, "config", "user.email", "t@example.com");
  write(root, "src/a.js", "a\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  const home = await worktreeHome(root, "f");
  const book = new RefBook();
  /** One attempt at story D from main's tip: a commit in its worktree, then the worktree retired unmerged. */
  const failedAttempt = async (text: string) => {
    const worktree = await openStoryWorktree(home, book, "D", git(root, "rev-parse", "HEAD"));
    write(worktree.path, "src/d.js", text);
    git(worktree.path, "add", "-A");
    git(worktree.path, "commit", "-q", "-m", `attempt ${text.trim()}`);
    const tip = git(worktree.path, "rev-parse", "HEAD");
    const kept = await retireStoryWorktree(home, book, worktree, false);
    assert.equal(existsSync(worktree.path), false);
    assert.equal(
      git(root, "worktree", "list").trim().split("\n").length,
      1,
      "git's record of it is gone too",
    );
    return { tip, kept };
  };
  return { root, home, book, failedAttempt };
}

describe("retireStoryWorktree", () => {
  it("sets an unmerged story's commits aside in refs/gantry/failed/<id>, and keeps earlier set-asides of it too", async () => {
    const { root, failedAttempt } = await fixture();
    const first = await failedAttempt("1\n");
    assert.equal(first.kept, failedRef("D"));
    assert.equal(git(root, "rev-parse", failedRef("D")), first.tip);
    assert.equal(git(root, "for-each-ref", "refs/heads/gantry"), "", "the story branch is gone");
    // The rerun on the tip fails too: its work takes the ref, the first attempt's stays reachable.
    const second = await failedAttempt("2\n");
    const third = await failedAttempt("3\n");
    assert.equal(git(root, "rev-parse", failedRef("D")), third.tip);
    assert.equal(git(root, "rev-parse", earlierFailedRef("D", 1)), first.tip);
    assert.equal(git(root, "rev-parse", earlierFailedRef("D", 2)), second.tip);
    assert.equal(git(root, "show", `${earlierFailedRef("D", 1)}:src/d.js`), "1");
  });

  it("a worktree whose folder is already gone is still forgotten by git", async () => {
    const { root, home, book } = await fixture();
    const worktree = await openStoryWorktree(home, book, "E", git(root, "rev-parse", "HEAD"));
    rmSync(worktree.path, { recursive: true, force: true });
    await retireStoryWorktree(home, book, worktree, true);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
  });

  it("a story's worktree opens again over what a lost one left: its folder, or only git's record of it", async () => {
    const { root, home, book } = await fixture();
    const tip = git(root, "rev-parse", "HEAD");
    const first = await openStoryWorktree(home, book, "F", tip);
    // The folder gone by hand, git's record left behind, the branch still there: the branch is checked out anew.
    rmSync(first.path, { recursive: true, force: true });
    const again = await openStoryWorktree(home, book, "F", tip);
    assert.equal(again.path, first.path);
    assert.equal(existsSync(join(again.path, "src", "a.js")), true);
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 2, "one record of it");
    // No record left, the folder still there (a removal cut short): it is cleared and made again.
    await retireStoryWorktree(home, book, again, true);
    write(again.path, "src/left.js", "left\n");
    const third = await openStoryWorktree(home, book, "F", tip);
    assert.equal(existsSync(join(third.path, "src", "left.js")), false);
    assert.equal(git(third.path, "status", "--porcelain"), "");
  });
});

describe("worktreeLocations", () => {
  it("says where a story's worktree is exactly as git rev-parse in it does, without asking git", async () => {
    const { root, book } = await fixture();
    // gantry's project in a folder of the repository: the worktree's project root is that folder in it.
    const home = await worktreeHome(join(root, "src"), "f");
    const worktree = await openStoryWorktree(home, book, "G", git(root, "rev-parse", "HEAD"));
    const [prefix, gitDir, commonDir, top, objectFormat] = git(
      join(worktree.path, "src"),
      "rev-parse",
      "--show-prefix",
      "--git-dir",
      "--git-common-dir",
      "--show-toplevel",
      "--show-object-format",
    ).split("\n");
    assert.equal(prefix, "src/");
    assert.deepEqual(worktreeLocations(home, worktree), { prefix, gitDir, commonDir, top, objectFormat });
  });

  it("anything it does not read as git would write it: undefined, and the caller asks git", async () => {
    const { root, home, book } = await fixture();
    const worktree = await openStoryWorktree(home, book, "H", git(root, "rev-parse", "HEAD"));
    writeFileSync(join(worktree.path, ".git"), `gitdir: ${root}/.git\n`);
    assert.equal(
      worktreeLocations(home, worktree),
      undefined,
      "not one of the repository's worktree records",
    );
    writeFileSync(join(worktree.path, ".git"), "not a gitdir line\n");
    assert.equal(worktreeLocations(home, worktree), undefined);
    rmSync(join(worktree.path, ".git"));
    assert.equal(worktreeLocations(home, worktree), undefined);
  });
});
