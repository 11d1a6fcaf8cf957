import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { compareAndRestore, snapshotGit } from "../../src/git/tamper-snapshot.js";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-tamper-"));
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  writeFileSync(join(root, "a.js"), "1\n");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return root;
}

async function changesAfter(root: string, act: () => void) {
  const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
  const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
  act();
  const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
  return compareAndRestore(root, dirs, before, after);
}

describe("tamper snapshot", { concurrency: true }, () => {
  it("sees nothing when nothing in git changed, even when the working tree did", async () => {
    const root = repo();
    assert.deepEqual(await changesAfter(root, () => writeFileSync(join(root, "a.js"), "2\n")), []);
  });

  it("puts back .git/config, a new hook, info/attributes and a mode change, and says what each was", async () => {
    const root = repo();
    const config = readFileSync(join(root, ".git/config"));
    writeFileSync(join(root, ".git/hooks/keep"), "#!/bin/sh\n");
    const changes = await changesAfter(root, () => {
      git(root, "config", "core.fsmonitor", "./spy.sh");
      writeFileSync(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
      writeFileSync(join(root, ".git/info/attributes"), "* filter=x\n");
      chmodSync(join(root, ".git/hooks/keep"), 0o755);
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [
        ["git-file", ".git/config changed", true],
        ["git-file", ".git/hooks/keep changed", true],
        ["git-file", ".git/hooks/pre-commit added", true],
        ["git-file", ".git/info/attributes added", true],
      ],
    );
    assert.deepEqual(readFileSync(join(root, ".git/config")), config);
    assert.ok(!existsSync(join(root, ".git/hooks/pre-commit")));
    assert.ok(!existsSync(join(root, ".git/info/attributes")));
    assert.equal(statSync(join(root, ".git/hooks/keep")).mode & 0o777, 0o644);
  });

  it("a hook replaced by a symlink is removed, never written through", async () => {
    const root = repo();
    const outside = join(mkdtempSync(join(tmpdir(), "gantry-outside-")), "target");
    writeFileSync(outside, "outside\n");
    const changes = await changesAfter(root, () =>
      symlinkSync(outside, join(root, ".git/hooks/post-commit")),
    );
    assert.equal(changes.length, 1);
    assert.equal(changes[0]?.restored, false, "a symlink is not a plain file gantry can put back");
    assert.equal(readFileSync(outside, "utf8"), "outside\n");
  });

  it("moves a branch the session committed on back, keeps a ref it created, and clears index flags", async () => {
    const root = repo();
    const base = git(root, "rev-parse", "HEAD");
    const changes = await changesAfter(root, () => {
      writeFileSync(join(root, "a.js"), "agent\n");
      git(root, "commit", "-q", "-am", "agent commit");
      git(root, "branch", "side");
      git(root, "update-index", "--skip-worktree", "a.js");
    });
    const kinds = changes.map((c) => `${c.kind}:${c.restored}`).sort();
    assert.deepEqual(kinds, ["index-flag:true", "ref:false", "ref:true"]);
    assert.equal(git(root, "rev-parse", "refs/heads/main"), base);
    assert.ok(git(root, "rev-parse", "refs/heads/side"), "a created ref is left for the user");
    assert.doesNotMatch(git(root, "ls-files", "-v", "a.js"), /^S/);
    assert.equal(readFileSync(join(root, "a.js"), "utf8"), "agent\n", "the work stays in the tree");
  });

  it("reports a detached HEAD and a merge in progress as not put back", async () => {
    const root = repo();
    const changes = await changesAfter(root, () => {
      git(root, "checkout", "-q", "--detach");
      writeFileSync(join(root, ".git/MERGE_HEAD"), `${git(root, "rev-parse", "HEAD")}\n`);
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.restored]),
      [
        ["head", false],
        ["in-progress", false],
      ],
    );
  });
});
