import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  compareAndRestore,
  type GitSnapshot,
  parseIndexFlags,
  snapshotGit,
} from "../../src/git/tamper-snapshot.js";

/** Every temporary folder the cases make, removed at the end. */
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
const temp = (prefix: string): string => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
};

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" }).trim();

/** One repository made with git once (a.js and b.js committed on main); each case works on a copy of it. */
const template = (() => {
  const root = temp("gantry-tamper-template-");
  git(root, "init", "-q", "-b", "main");
  writeFileSync(join(root, "a.js"), "1\n");
  writeFileSync(join(root, "b.js"), "b\n");
  git(root, "add", "-A");
  git(root, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "base");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  return root;
})();

function repo(): string {
  const root = temp("gantry-tamper-");
  cpSync(template, root, { recursive: true });
  return root;
}

/** A snapshot before and after `act`, compared as gantry does after a session. */
async function changesAfter(root: string, act: () => void) {
  const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
  const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
  act();
  const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir, before);
  return compareAndRestore(root, dirs, before, after);
}

describe("tamper snapshot", { concurrency: true }, () => {
  it("sees nothing when nothing in git changed, even when the working tree did", async () => {
    const root = repo();
    assert.deepEqual(await changesAfter(root, () => writeFileSync(join(root, "a.js"), "2\n")), []);
  });

  it("git's own housekeeping is not tampering: gc, packed refs, info/refs, reflogs expired", async () => {
    const root = repo();
    const changes = await changesAfter(root, () => {
      git(root, "gc", "-q", "--aggressive", "--prune=now");
      git(root, "pack-refs", "--all");
      git(root, "update-server-info");
      git(root, "reflog", "expire", "--expire=now", "--all");
    });
    assert.deepEqual(changes, []);
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
    const outside = join(temp("gantry-outside-"), "target");
    writeFileSync(outside, "outside\n");
    const changes = await changesAfter(root, () =>
      symlinkSync(outside, join(root, ".git/hooks/post-commit")),
    );
    assert.equal(changes.length, 1);
    assert.equal(changes[0]?.restored, false, "a symlink is not a plain file gantry can put back");
    assert.equal(readFileSync(outside, "utf8"), "outside\n");
  });

  it("a hook symlink pointed elsewhere, and a script edited or added inside a hooks folder, are changes", async () => {
    const root = repo();
    const hooks = join(root, ".git/hooks");
    symlinkSync("/bin/true", join(hooks, "pre-push"));
    mkdirSync(join(hooks, "pre-commit.d/nested"), { recursive: true });
    writeFileSync(join(hooks, "pre-commit.d/lint"), "#!/bin/sh\nexit 0\n");
    const changes = await changesAfter(root, () => {
      rmSync(join(hooks, "pre-push"));
      symlinkSync("/bin/false", join(hooks, "pre-push"));
      writeFileSync(join(hooks, "pre-commit.d/lint"), "#!/bin/sh\nexit 1\n");
    });
    assert.deepEqual(
      changes.map((c) => [c.what, c.restored]),
      [
        [".git/hooks/pre-commit.d changed", false],
        [".git/hooks/pre-push changed", false],
      ],
    );
    const moreChanges = [
      () => chmodSync(join(hooks, "pre-commit.d/lint"), 0o700),
      () => writeFileSync(join(hooks, "pre-commit.d/nested/run"), ""),
      () => symlinkSync("/bin/true", join(hooks, "pre-commit.d/link")),
    ];
    for (const act of moreChanges) {
      assert.deepEqual(
        (await changesAfter(root, act)).map((c) => c.what),
        [".git/hooks/pre-commit.d changed"],
      );
    }
    // The work a snapshot does is bounded: a folder two levels down is read by its names only.
    writeFileSync(join(hooks, "pre-commit.d/nested/run"), "");
    assert.deepEqual(
      await changesAfter(root, () => writeFileSync(join(hooks, "pre-commit.d/nested/run"), "edited")),
      [],
    );
  });

  it("a hook symlink or folder replaced by a plain file is reported and left as it is (gantry has no copy of it)", async () => {
    const root = repo();
    const hooks = join(root, ".git/hooks");
    symlinkSync("/bin/true", join(hooks, "pre-push"));
    mkdirSync(join(hooks, "post-merge"));
    const changes = await changesAfter(root, () => {
      rmSync(join(hooks, "pre-push"));
      writeFileSync(join(hooks, "pre-push"), "#!/bin/sh\n");
      rmSync(join(hooks, "post-merge"), { recursive: true });
      writeFileSync(join(hooks, "post-merge"), "#!/bin/sh\n");
    });
    assert.deepEqual(
      changes.map((c) => [c.what, c.restored]),
      [
        [".git/hooks/post-merge changed", false],
        [".git/hooks/pre-push changed", false],
      ],
    );
    assert.equal(readFileSync(join(hooks, "pre-push"), "utf8"), "#!/bin/sh\n");
  });

  it("special files (fifos) in the hooks folder turned into a folder or a plain file are changes, left as they are", async () => {
    const root = repo();
    const folder = join(root, ".git/hooks/pre-rebase");
    const file = join(root, ".git/hooks/pre-receive");
    execFileSync("mkfifo", [folder, file]);
    const changes = await changesAfter(root, () => {
      rmSync(folder);
      mkdirSync(folder);
      rmSync(file);
      writeFileSync(file, "#!/bin/sh\n");
    });
    assert.deepEqual(
      changes.map((c) => [c.what, c.restored]),
      [
        [".git/hooks/pre-rebase changed", false],
        [".git/hooks/pre-receive changed", false],
      ],
    );
    assert.equal(readFileSync(file, "utf8"), "#!/bin/sh\n");
  });

  it("clears a flag on a file whose name starts with a dash", async () => {
    const root = repo();
    writeFileSync(join(root, "-x.js"), "x\n");
    git(root, "add", "--", "-x.js");
    const changes = await changesAfter(root, () =>
      git(root, "update-index", "--skip-worktree", "--", "-x.js"),
    );
    assert.deepEqual(
      changes.map((c) => [c.what, c.restored]),
      [["skip-worktree set on -x.js in the index", true]],
    );
    assert.equal(git(root, "ls-files", "-v", "--", "-x.js"), "H -x.js");
  });

  it("a hook rewritten to the same length is a change, and is put back", async () => {
    const root = repo();
    writeFileSync(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 1\n");
    const changes = await changesAfter(root, () =>
      writeFileSync(join(root, ".git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n"),
    );
    assert.deepEqual(
      changes.map((c) => [c.what, c.restored]),
      [[".git/hooks/pre-commit changed", true]],
    );
    assert.equal(readFileSync(join(root, ".git/hooks/pre-commit"), "utf8"), "#!/bin/sh\nexit 1\n");
  });

  it("changes are listed by path, whichever snapshot holds them", async () => {
    const root = repo();
    git(root, "branch", "zz");
    const changes = await changesAfter(root, () => {
      rmSync(join(root, ".git/info/exclude"));
      writeFileSync(join(root, ".git/hooks/post-merge"), "#!/bin/sh\n");
      git(root, "branch", "-q", "-D", "zz");
      git(root, "branch", "aa");
    });
    assert.deepEqual(
      changes.map((c) => c.what.replace(/ at .*| \(was .*/, "")),
      [
        ".git/hooks/post-merge added",
        ".git/info/exclude removed",
        "refs/heads/aa created",
        "refs/heads/zz deleted",
      ],
    );
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

  it("says which ref was created, deleted or moved, and puts a deleted branch back", async () => {
    const root = repo();
    git(root, "branch", "old");
    const base = git(root, "rev-parse", "HEAD");
    let moved = "";
    const changes = await changesAfter(root, () => {
      git(root, "branch", "-D", "-q", "old");
      git(root, "commit", "-q", "--allow-empty", "-m", "agent commit");
      moved = git(root, "rev-parse", "HEAD");
      git(root, "tag", "v9");
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [
        ["ref", `refs/heads/main moved from ${base.slice(0, 12)} to ${moved.slice(0, 12)}`, true],
        ["ref", `refs/heads/old deleted (was ${base.slice(0, 12)})`, true],
        ["ref", `refs/tags/v9 created at ${moved.slice(0, 12)}`, false],
      ],
    );
    assert.equal(git(root, "rev-parse", "refs/heads/old"), base);
    assert.equal(git(root, "rev-parse", "refs/heads/main"), base);
  });

  it("a branch that moved again after the session is reported, not forced back", async () => {
    const root = repo();
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    git(root, "commit", "-q", "--allow-empty", "-m", "agent commit");
    const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    git(root, "commit", "-q", "--allow-empty", "-m", "the user's own commit since");
    const users = git(root, "rev-parse", "HEAD");
    const changes = await compareAndRestore(root, dirs, before, after);
    assert.deepEqual(
      changes.map((c) => [c.kind, c.restored]),
      [["ref", false]],
    );
    assert.equal(git(root, "rev-parse", "HEAD"), users);
  });

  it("clears an assume-unchanged flag, and reports a flag on an entry gone since as not cleared", async () => {
    const root = repo();
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    git(root, "update-index", "--assume-unchanged", "a.js");
    git(root, "update-index", "--skip-worktree", "b.js");
    const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    git(root, "update-index", "--force-remove", "b.js");
    const changes = await compareAndRestore(root, dirs, before, after);
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [
        ["index-flag", "assume-unchanged set on a.js in the index", true],
        ["index-flag", "skip-worktree set on b.js in the index", false],
      ],
    );
    assert.match(git(root, "ls-files", "-v", "a.js"), /^H a\.js$/);
  });

  it("a flag the user had before the session is theirs and stays", async () => {
    const root = repo();
    git(root, "update-index", "--skip-worktree", "a.js");
    assert.deepEqual(await changesAfter(root, () => writeFileSync(join(root, "a.js"), "2\n")), []);
    assert.match(git(root, "ls-files", "-v", "a.js"), /^S a\.js$/);
  });

  it("writes a removed hook back with its mode, and says what HEAD and the operation were", async () => {
    const root = repo();
    writeFileSync(join(root, ".git/hooks/pre-push"), "#!/bin/sh\nexit 1\n", { mode: 0o750 });
    chmodSync(join(root, ".git/hooks/pre-push"), 0o750);
    const changes = await changesAfter(root, () => {
      rmSync(join(root, ".git/hooks/pre-push"));
      writeFileSync(join(root, ".git/HEAD"), "ref: refs/heads/other\n");
      mkdirSync(join(root, ".git/rebase-merge"));
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [
        ["git-file", ".git/hooks/pre-push removed", true],
        ["head", 'HEAD changed from "ref: refs/heads/main" to "ref: refs/heads/other"', false],
        ["in-progress", "git was left in the middle of an operation (.git/rebase-merge)", false],
      ],
    );
    assert.equal(readFileSync(join(root, ".git/hooks/pre-push"), "utf8"), "#!/bin/sh\nexit 1\n");
    assert.equal(statSync(join(root, ".git/hooks/pre-push")).mode & 0o777, 0o750);
  });

  it("an operation already in progress before the session is not the session's doing", async () => {
    const root = repo();
    writeFileSync(join(root, ".git/MERGE_HEAD"), `${git(root, "rev-parse", "HEAD")}\n`);
    assert.deepEqual(await changesAfter(root, () => writeFileSync(join(root, "a.js"), "2\n")), []);
  });

  it("sees a hook turned into a directory, and a file added inside a hooks directory", async () => {
    const root = repo();
    mkdirSync(join(root, ".git/hooks/pre-commit.d"));
    writeFileSync(join(root, ".git/hooks/pre-commit.d/one"), "#!/bin/sh\n");
    const changes = await changesAfter(root, () => {
      writeFileSync(join(root, ".git/hooks/pre-commit.d/two"), "#!/bin/sh\n");
      mkdirSync(join(root, ".git/hooks/post-merge"));
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [
        ["git-file", ".git/hooks/post-merge added", false],
        ["git-file", ".git/hooks/pre-commit.d changed", false],
      ],
    );
  });

  it("config.worktree is watched in a linked worktree's own git directory", async () => {
    const root = repo();
    const linked = join(temp("gantry-tamper-wt-"), "wt");
    git(root, "worktree", "add", "-q", linked);
    const gitDir = git(linked, "rev-parse", "--absolute-git-dir");
    const dirs = { gitDir, commonDir: join(root, ".git") };
    const before = await snapshotGit(linked, dirs.gitDir, dirs.commonDir);
    writeFileSync(join(gitDir, "config.worktree"), "[core]\n\tfsmonitor = ./spy.sh\n");
    const after = await snapshotGit(linked, dirs.gitDir, dirs.commonDir);
    const changes = await compareAndRestore(linked, dirs, before, after);
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [["git-file", ".git/config.worktree added", true]],
    );
    assert.ok(!existsSync(join(gitDir, "config.worktree")));
    assert.ok(!existsSync(join(root, ".git/config.worktree")));
  });

  it("clears both flags of an entry the session made skip-worktree and assume-unchanged at once", async () => {
    const root = repo();
    const changes = await changesAfter(root, () => {
      git(root, "update-index", "--skip-worktree", "a.js");
      git(root, "update-index", "--assume-unchanged", "a.js");
    });
    assert.deepEqual(changes.map((c) => [c.kind, c.what, c.restored]).sort(), [
      ["index-flag", "assume-unchanged set on a.js in the index", true],
      ["index-flag", "skip-worktree set on a.js in the index", true],
    ]);
    assert.equal(git(root, "ls-files", "-v", "a.js"), "H a.js");
  });

  it("reads each index tag of ls-files -v: S skip-worktree, lowercase assume-unchanged, s both", () => {
    const out = ["H a.js", "S b.js", "h c.js", "s d e.js", "M f.js", "C g.js", "", "c h.js"].join("\0");
    assert.deepEqual([...parseIndexFlags(out)].sort(), [
      "S b.js",
      "S d e.js",
      "h c.js",
      "h d e.js",
      "h h.js",
    ]);
    assert.deepEqual([...parseIndexFlags("")], []);
  });

  it("reads refs through git when their files cannot be read (a reftable directory), and still puts a branch back", async () => {
    const root = repo();
    const base = git(root, "rev-parse", "HEAD");
    mkdirSync(join(root, ".git/reftable"));
    const changes = await changesAfter(root, () => {
      git(root, "commit", "-q", "--allow-empty", "-m", "agent commit");
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.restored]),
      [["ref", true]],
    );
    assert.equal(git(root, "rev-parse", "refs/heads/main"), base);
  });

  it("a hooks folder grown past the entries it reads is a change, even when the new hook sorts past them", async () => {
    const root = repo();
    const hooks = join(root, ".git/hooks");
    rmSync(hooks, { recursive: true, force: true });
    mkdirSync(hooks);
    // Symlinks are the cheapest entries to make and read: the bound counts names of any kind.
    for (let i = 0; i < 1999; i++) symlinkSync("x", join(hooks, `a${String(i).padStart(4, "0")}`));
    // 1999 entries: all read; one more is 2000, still all read. Each snapshot reads the folder whole, so
    // the cases share them: the one after a change is the one before the next.
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const snap = (before?: GitSnapshot) => snapshotGit(root, dirs.gitDir, dirs.commonDir, before);
    const under = await snap();
    writeFileSync(join(hooks, "a9999"), "");
    const atBound = await snap(under);
    assert.deepEqual(
      (await compareAndRestore(root, dirs, under, atBound)).map((c) => c.what),
      [".git/hooks/a9999 added"],
    );
    assert.ok(!existsSync(join(hooks, "a9999")));
    writeFileSync(join(hooks, "a9999"), "");
    writeFileSync(join(hooks, "pre-commit"), "#!/bin/sh\n");
    const past = await snap(atBound);
    assert.deepEqual(
      (await compareAndRestore(root, dirs, atBound, past)).map((c) => [c.what, c.restored]),
      [[".git/hooks (over 2000 entries) added", false]],
    );
    writeFileSync(join(hooks, "post-commit"), "#!/bin/sh\n");
    const grown = await snap(past);
    assert.deepEqual(
      (await compareAndRestore(root, dirs, past, grown)).map((c) => c.what),
      [".git/hooks (over 2000 entries) changed"],
    );
    // The same folder one level down (a hook manager's folder): one more entry past the bound is a change.
    renameSync(hooks, join(root, ".git/full"));
    mkdirSync(hooks);
    renameSync(join(root, ".git/full"), join(hooks, "pre-commit.d"));
    const nested = await snap(grown);
    writeFileSync(join(hooks, "pre-commit.d/zz"), "");
    assert.deepEqual(
      (await compareAndRestore(root, dirs, nested, await snap(nested))).map((c) => c.what),
      [".git/hooks/pre-commit.d changed"],
    );
  });

  it("sees objects/info/alternates added (objects borrowed from another repository) and removes it", async () => {
    const root = repo();
    const changes = await changesAfter(root, () =>
      writeFileSync(join(root, ".git/objects/info/alternates"), "/tmp/elsewhere/objects\n"),
    );
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what, c.restored]),
      [["git-file", ".git/objects/info/alternates added", true]],
    );
    assert.ok(!existsSync(join(root, ".git/objects/info/alternates")));
  });

  it("every operation git can leave half done is reported by its own file", async () => {
    const root = repo();
    const names = ["CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG", "rebase-apply", "sequencer"];
    const changes = await changesAfter(root, () => {
      for (const name of names) writeFileSync(join(root, ".git", name), "x\n");
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what]),
      names.map((name) => ["in-progress", `git was left in the middle of an operation (.git/${name})`]),
    );
  });

  it("index flags known for an index file are reused only while it is that same file", async () => {
    const root = repo();
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    const unchanged = await snapshotGit(root, dirs.gitDir, dirs.commonDir, {
      indexKey: before.indexKey,
      indexFlags: new Set(["S known.js"]),
    });
    assert.deepEqual(
      [...unchanged.indexFlags],
      ["S known.js"],
      "the same index file: the flags known for it",
    );
    git(root, "update-index", "--skip-worktree", "a.js");
    const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir, before);
    assert.notEqual(after.indexKey, before.indexKey);
    assert.deepEqual([...after.indexFlags], ["S a.js"]);
    const changes = await compareAndRestore(root, dirs, before, after);
    assert.deepEqual(
      changes.map((c) => c.what),
      ["skip-worktree set on a.js in the index"],
    );
  });

  it("an index rewritten in place (same inode, the .git folder's times untouched) is read again", async () => {
    const root = repo();
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const index = join(root, ".git", "index");
    const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    // The bytes of the same index with skip-worktree set, made in a copy and written over the file in
    // place, as a session that edits .git/index itself rather than through git would.
    const copy = temp("gantry-index-copy-");
    execFileSync("cp", ["-a", `${root}/.`, copy]);
    git(copy, "update-index", "--skip-worktree", "a.js");
    const flagged = readFileSync(join(copy, ".git", "index"));
    const folder = statSync(dirs.gitDir);
    writeFileSync(index, flagged);
    assert.equal(statSync(dirs.gitDir).mtimeMs, folder.mtimeMs, "no entry of .git changed");
    const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir, before);
    assert.deepEqual([...after.indexFlags], ["S a.js"]);
  });

  it("an index rewritten in place at the same size (assume-unchanged is a bit of an entry) is read again", async () => {
    const root = repo();
    const dirs = { gitDir: join(root, ".git"), commonDir: join(root, ".git") };
    const index = join(root, ".git", "index");
    // Written once by update-index, so that the copy's rewrite below keeps the same layout.
    git(root, "update-index", "--no-assume-unchanged", "a.js");
    const before = await snapshotGit(root, dirs.gitDir, dirs.commonDir);
    const copy = temp("gantry-index-copy-");
    execFileSync("cp", ["-a", `${root}/.`, copy]);
    git(copy, "update-index", "--assume-unchanged", "a.js");
    const flagged = readFileSync(join(copy, ".git", "index"));
    assert.equal(flagged.length, statSync(index).size, "the same size: only the key's times tell");
    writeFileSync(index, flagged);
    const after = await snapshotGit(root, dirs.gitDir, dirs.commonDir, before);
    assert.deepEqual([...after.indexFlags], ["h a.js"]);
  });

  it("a repository with no hooks or info folder is read, and a hooks folder made then is a change", async () => {
    const root = repo();
    rmSync(join(root, ".git", "hooks"), { recursive: true, force: true });
    rmSync(join(root, ".git", "info"), { recursive: true, force: true });
    const changes = await changesAfter(root, () => {
      mkdirSync(join(root, ".git", "hooks"));
      writeFileSync(join(root, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    });
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what]),
      [["git-file", ".git/hooks/pre-commit added"]],
    );
  });

  it("in a linked worktree, the common config (not the worktree's own git folder) is what is watched", async () => {
    const root = repo();
    const linked = join(temp("gantry-linked-"), "wt");
    git(root, "worktree", "add", "-q", "-b", "side", linked);
    const dirs = { gitDir: join(root, ".git", "worktrees", "wt"), commonDir: join(root, ".git") };
    const before = await snapshotGit(linked, dirs.gitDir, dirs.commonDir);
    git(linked, "config", "core.hooksPath", "/tmp/elsewhere");
    const after = await snapshotGit(linked, dirs.gitDir, dirs.commonDir, before);
    const changes = await compareAndRestore(linked, dirs, before, after);
    assert.deepEqual(
      changes.map((c) => [c.kind, c.what]),
      [["git-file", ".git/config changed"]],
    );
  });
});
