import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createPrivateGit } from "../../src/git/hermetic.js";
import { git, write } from "../support/fixture-repo.js";

/**
 * A private git's exclude rules are read once a run for all the worktrees of a repository, unless git's
 * config could differ between them (a worktree config, an include): then each worktree reads its own.
 */
describe("private git settings shared across a repository's worktrees", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-hermetic-")));
  const disposers: (() => void)[] = [];
  after(() => {
    for (const dispose of disposers) dispose();
    rmSync(root, { recursive: true, force: true });
  });
  const main = join(root, "main");
  write(main, "a.txt", "a\n");
  git(main, "init", "-q", "-b", "main");
  git(main, "add", "-A");
  git(main, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  const common = join(main, ".git");
  const linked = join(root, "linked");
  git(main, "worktree", "add", "-q", "-b", "other", linked);
  const ignore = join(root, "ignore");
  writeFileSync(ignore, "first-rule\n");
  git(main, "config", "core.excludesfile", ignore);
  const dirsOf = (top: string, gitDir: string) => ({ top, gitDir, commonDir: common });
  const excludeOf = async (top: string, gitDir: string) => {
    const privateGit = await createPrivateGit(dirsOf(top, gitDir));
    disposers.push(privateGit.dispose);
    return readFileSync(join(privateGit.dir, "info", "exclude"), "utf8");
  };

  it("read once for the repository: a later worktree gets the rules as they were when the first was read", async () => {
    assert.match(await excludeOf(main, common), /first-rule/);
    writeFileSync(ignore, "second-rule\n");
    const again = await excludeOf(linked, join(common, "worktrees", "linked"));
    assert.match(again, /first-rule/);
    assert.doesNotMatch(again, /second-rule/);
  });

  it("an include in the config, or a worktree's own config: each worktree reads its own", async () => {
    appendFileSync(join(common, "config"), `[include]\n\tpath = ${join(root, "none")}\n`);
    assert.match(await excludeOf(linked, join(common, "worktrees", "linked")), /second-rule/);
    git(main, "config", "--unset", "include.path");
    const own = join(root, "own-ignore");
    writeFileSync(own, "linked-only\n");
    git(main, "config", "extensions.worktreeConfig", "true");
    git(linked, "config", "--worktree", "core.excludesfile", own);
    assert.match(await excludeOf(linked, join(common, "worktrees", "linked")), /linked-only/);
  });
});
