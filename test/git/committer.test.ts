import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { committerIdentity } from "../../src/git/committer.js";
import { git, write } from "../support/fixture-repo.js";

/**
 * The committer identity is read once for all the worktrees of a repository (each parallel story commits
 * from its own), but only while git's config is the same for every worktree and unchanged.
 */
describe("committer identity shared across a repository's worktrees", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-committer-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  const main = join(root, "main");
  write(main, "a.txt", "a\n");
  git(main, "init", "-q", "-b", "main");
  git(main, "config", "user.name", "Main Person");
  git(main, "config", "user.email", "main@example.com");
  git(main, "add", "-A");
  git(main, "commit", "-q", "-m", "base");
  const common = join(main, ".git");
  const linked = join(root, "linked");
  git(main, "worktree", "add", "-q", "-b", "other", linked);
  const linkedGitDir = readFileSync(join(linked, ".git"), "utf8")
    .replace(/^gitdir: /, "")
    .trim();
  const mainDirs = { gitDir: common, commonDir: common };
  const linkedDirs = { gitDir: linkedGitDir, commonDir: common };

  it("one read for every worktree while the config is the same, the name and email as git gives them", async () => {
    const first = committerIdentity(main, mainDirs);
    assert.equal(committerIdentity(linked, linkedDirs), first);
    assert.deepEqual(await first, {
      GIT_AUTHOR_NAME: "Main Person",
      GIT_AUTHOR_EMAIL: "main@example.com",
      GIT_COMMITTER_NAME: "Main Person",
      GIT_COMMITTER_EMAIL: "main@example.com",
    });
  });

  it("a changed config is read again", async () => {
    const before = committerIdentity(linked, linkedDirs);
    git(main, "config", "user.email", "changed@example.com");
    const after = committerIdentity(linked, linkedDirs);
    assert.notEqual(after, before);
    assert.equal((await after).GIT_COMMITTER_EMAIL, "changed@example.com");
  });

  it("an includeIf naming one worktree: each worktree reads its own identity", async () => {
    const own = join(root, "linked.gitconfig");
    writeFileSync(own, "[user]\n\temail = linked@example.com\n");
    appendFileSync(join(common, "config"), `[includeIf "gitdir:${linkedGitDir}"]\n\tpath = ${own}\n`);
    assert.equal((await committerIdentity(main, mainDirs)).GIT_AUTHOR_EMAIL, "changed@example.com");
    assert.equal((await committerIdentity(linked, linkedDirs)).GIT_AUTHOR_EMAIL, "linked@example.com");
    assert.notEqual(committerIdentity(linked, linkedDirs), committerIdentity(linked, linkedDirs));
  });

  it("a worktree's own config: read for that worktree each time", async () => {
    git(main, "config", "--remove-section", `includeIf.gitdir:${linkedGitDir}`);
    git(main, "config", "extensions.worktreeConfig", "true");
    git(linked, "config", "--worktree", "user.email", "worktree@example.com");
    assert.equal((await committerIdentity(linked, linkedDirs)).GIT_COMMITTER_EMAIL, "worktree@example.com");
    assert.equal((await committerIdentity(main, mainDirs)).GIT_COMMITTER_EMAIL, "changed@example.com");
  });
});
