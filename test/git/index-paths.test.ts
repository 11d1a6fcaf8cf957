import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { IndexPaths } from "../../src/git/index-paths.js";
import { openRepo } from "../../src/git/repo.js";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

function repo(names: string[]): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-index-paths-"));
  temps.push(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  write(root, names);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return root;
}

function write(root: string, names: string[]): void {
  for (const name of names) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), `${name}\n`);
  }
}

/** What git says the index holds, each path once. */
const gitPaths = (root: string) =>
  [...new Set(git(root, "ls-files", "-z").split("\0").filter(Boolean))].sort();
const read = (reader: IndexPaths, root: string) => {
  const paths = reader.read(join(root, ".git", "index"));
  assert.ok(paths, "the index was read");
  return [...paths].sort();
};

const NAMES = ["a.js", "b/c.ts", "b/c.ts.bak", "b/d/e.ts", "bb.txt", "ü-file.md", `${"n".repeat(200)}/x.txt`];
/** Longer than the 0xFFF a name's length field holds: only in the index (no file system takes it). */
const LONG = `${`${"l".repeat(230)}/`.repeat(18)}long.txt`;

describe("IndexPaths", () => {
  it("follows the index from one version to the next: paths added, removed, renamed, a folder replaced", () => {
    const root = repo(NAMES);
    const reader = new IndexPaths();
    assert.deepEqual(read(reader, root), gitPaths(root));
    const blob = git(root, "rev-parse", "HEAD:a.js").trim();
    git(root, "update-index", "--add", "--cacheinfo", `100644,${blob},${LONG}`);
    assert.ok(gitPaths(root).includes(LONG));
    assert.deepEqual(read(reader, root), gitPaths(root));
    git(root, "update-index", "--force-remove", LONG);
    // Names before, between and after the existing ones, one removed, one renamed, and a file that becomes a folder.
    write(root, ["0-first.txt", "b/c.tsx", "zz/last.txt", "b/d/f.ts"]);
    git(root, "rm", "-q", "bb.txt");
    git(root, "mv", "a.js", "a2.js");
    git(root, "rm", "-q", "b/c.ts.bak");
    write(root, ["b/c.ts.bak/inner.txt"]);
    git(root, "add", "-A");
    assert.deepEqual(read(reader, root), gitPaths(root));
    git(root, "commit", "-q", "-m", "next");
    git(root, "rm", "-q", "-r", "b");
    assert.deepEqual(read(reader, root), gitPaths(root));
    // Nothing changed: the same paths.
    assert.deepEqual(read(reader, root), gitPaths(root));
    // Everything removed, then back.
    git(root, "rm", "-q", "-r", "--cached", ".");
    assert.deepEqual(read(reader, root), []);
    git(root, "add", "-A");
    assert.deepEqual(read(reader, root), gitPaths(root));
  });

  it("reads a version 4 index and an unmerged one whole, and follows them back to version 2", () => {
    const root = repo(NAMES);
    const reader = new IndexPaths();
    assert.deepEqual(read(reader, root), gitPaths(root));
    git(root, "update-index", "--index-version", "4");
    write(root, ["b/new.ts"]);
    git(root, "add", "-A");
    assert.deepEqual(read(reader, root), gitPaths(root));
    git(root, "update-index", "--index-version", "2");
    git(root, "rm", "-q", "--cached", "b/new.ts");
    assert.deepEqual(read(reader, root), gitPaths(root));

    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "with new");
    git(root, "checkout", "-q", "-b", "other");
    writeFileSync(join(root, "a.js"), "other\n");
    git(root, "commit", "-qam", "other");
    git(root, "checkout", "-q", "main");
    writeFileSync(join(root, "a.js"), "main\n");
    git(root, "commit", "-qam", "main");
    assert.throws(() => git(root, "merge", "-q", "other"));
    assert.deepEqual(read(reader, root), gitPaths(root));
  });

  it("follows gantry's commit from the paths its user's index added and removed, and git's writes after it", async () => {
    const root = repo(NAMES);
    writeFileSync(join(root, ".gitignore"), ".gantry/runs/\n");
    mkdirSync(join(root, ".gantry/features/f"), { recursive: true });
    writeFileSync(join(root, ".gantry/features/f/prd.json"), "{}\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "gantry");
    const repo_ = await openRepo(root);
    const tracked = async () => [...((await repo_.trackedFiles()) ?? [])].sort();
    assert.deepEqual(await tracked(), gitPaths(root));
    write(root, ["b/new.ts", "zz/last.txt"]);
    rmSync(join(root, "bb.txt"));
    writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"done":1}\n');
    await repo_.commitJudged(await repo_.judge(), "gantry(US-1): one");
    assert.equal(readFileSync(join(root, ".git/index")).includes("TREE"), false, "the index written in node");
    assert.deepEqual(await tracked(), gitPaths(root));
    assert.ok(gitPaths(root).includes("b/new.ts") && !gitPaths(root).includes("bb.txt"));
    // git writes the index after gantry: read again, not taken from the commit.
    git(root, "rm", "-q", "--cached", "a.js");
    assert.deepEqual(await tracked(), gitPaths(root));
    rmSync(join(root, "zz"), { recursive: true });
    await repo_.commitJudged(await repo_.judge({ recheck: true }), "gantry(US-2): two");
    assert.ok(!gitPaths(root).includes("zz/last.txt"));
    assert.deepEqual(await tracked(), gitPaths(root));
    repo_.close();
  });

  it("the run's first tamper snapshot takes its index flags from readiness's read of the same file", async () => {
    const root = repo(NAMES);
    git(root, "update-index", "--skip-worktree", "b/c.ts");
    git(root, "update-index", "--assume-unchanged", "a.js");
    const repo_ = await openRepo(root);
    assert.deepEqual([...((await repo_.trackedFiles()) ?? [])].sort(), gitPaths(root));
    const taken = await repo_.snapshot();
    assert.deepEqual([...taken.indexFlags].sort(), ["S b/c.ts", "h a.js"]);
    git(root, "update-index", "--no-skip-worktree", "b/c.ts");
    assert.deepEqual(
      [...(await repo_.snapshot()).indexFlags],
      ["h a.js"],
      "a new version of the file is read",
    );
    repo_.close();
  });

  it("gives up where the file alone does not hold the entries (split index), and on a missing file", () => {
    const root = repo(NAMES);
    const reader = new IndexPaths();
    assert.deepEqual(read(reader, root), gitPaths(root));
    git(root, "update-index", "--split-index");
    assert.equal(reader.read(join(root, ".git", "index")), undefined);
    assert.equal(reader.read(join(root, "missing")), undefined);
  });
});
