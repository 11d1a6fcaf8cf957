import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { treeOfCommit } from "../../src/git/commit-trees.js";
import { commitMerge, followBranch, mergeTrees, moveWorktree, resetWorktree } from "../../src/git/merge.js";
import { openRepo } from "../../src/git/repo.js";
import { git, write } from "../support/fixture-repo.js";

/** A repository with a base commit on main, and two branches from it. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), "gantry-merge-"));
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "t");
  git(root, "config", "user.email", "t@example.com");
  write(root, "src/a.js", "a\n");
  write(root, ".gantry/features/f/prd.json", '{"v":0}\n');
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  const base = git(root, "rev-parse", "HEAD");
  const branch = (name: string, files: Record<string, string>) => {
    git(root, "checkout", "-q", "-b", name, base);
    for (const [path, text] of Object.entries(files)) write(root, path, text);
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", name);
    const tip = git(root, "rev-parse", "HEAD");
    git(root, "checkout", "-q", "main");
    return tip;
  };
  return { root, base, branch };
}

describe("mergeTrees", () => {
  it("gives the merged tree of two commits without touching the index or files, or the conflicting paths", async () => {
    const { root, branch } = fixture();
    const one = branch("one", { "src/b.js": "b\n", "src/same.js": "1\n" });
    const two = branch("two", { "src/c.js": "c\n" });
    const three = branch("three", { "src/same.js": "3\n" });
    const clean = await mergeTrees(root, one, two);
    assert.equal(clean.clean, true);
    assert.deepEqual(
      git(root, "ls-tree", "-r", "--name-only", clean.tree)
        .split("\n")
        .filter((p) => p.startsWith("src/")),
      ["src/a.js", "src/b.js", "src/c.js", "src/same.js"],
    );
    const conflict = await mergeTrees(root, one, three);
    assert.equal(conflict.clean, false);
    assert.deepEqual(conflict.clean ? [] : conflict.conflicts, ["src/same.js"]);
    assert.equal(git(root, "status", "--porcelain"), "");
  });
});

describe("commitMerge and followBranch", () => {
  it("commits the judged tree with two parents and prd.json as the file holds it, moves the branch only from the judged tip, and the main tree follows", async () => {
    const { root, base, branch } = fixture();
    const story = branch("story", { "src/b.js": "b\n" });
    const merged = await mergeTrees(root, base, story);
    assert.ok(merged.clean);
    writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"v":1}\n');
    const plan = {
      cwd: root,
      tree: treeWithout(root, merged.tree, ".gantry"),
      base,
      story,
      branch: "refs/heads/main",
      gantryDir: ".gantry",
      prd: { path: ".gantry/features/f/prd.json", file: join(root, ".gantry/features/f/prd.json") },
      subject: "gantry: merge story",
      indexFile: join(root, ".git", "merge-test.index"),
    };
    // A branch that moved since the judge saw it is not moved again (compare-and-swap).
    await assert.rejects(commitMerge({ ...plan, base: story }), /update-ref|cannot lock|but expected/);
    const sha = await commitMerge(plan);
    assert.equal(git(root, "rev-parse", "main"), sha);
    assert.equal(git(root, "rev-list", "--parents", "-n", "1", sha), `${sha} ${base} ${story}`);
    assert.equal(git(root, "show", `${sha}:.gantry/features/f/prd.json`), '{"v":1}');
    assert.equal(
      treeOfCommit(sha),
      git(root, "rev-parse", `${sha}^{tree}`),
      "its tree known without asking git",
    );
    assert.equal(existsSync(join(root, "src/b.js")), false, "not yet followed");
    const changed = await followBranch(root, "", base, sha);
    assert.deepEqual(changed, ["src/b.js"]);
    assert.equal(readFileSync(join(root, "src/b.js"), "utf8"), "b\n");
    assert.equal(git(root, "status", "--porcelain"), "");
  });

  it("a branch with no gantry folder: the merge commit has none but prd.json; a file in its place fails", async () => {
    const { root, base, branch } = fixture();
    const story = branch("story", { "src/b.js": "b\n" });
    const merged = await mergeTrees(root, base, story);
    assert.ok(merged.clean);
    write(root, "pkg/.gantry/features/f/prd.json", '{"v":2}\n');
    const plan = {
      cwd: root,
      tree: merged.tree,
      base,
      story,
      branch: "refs/heads/main",
      gantryDir: "pkg/.gantry",
      prd: { path: "pkg/.gantry/features/f/prd.json", file: join(root, "pkg/.gantry/features/f/prd.json") },
      subject: "gantry: merge story",
      indexFile: join(root, ".git", "merge-test-2.index"),
    };
    const sha = await commitMerge(plan);
    assert.deepEqual(git(root, "ls-tree", "-r", "--name-only", `${sha}:pkg`).split("\n"), [
      ".gantry/features/f/prd.json",
    ]);
    // A "folder" that is a file in the branch cannot be read as one: the step says so.
    await assert.rejects(
      commitMerge({ ...plan, base: sha, gantryDir: ".gantry/features/f/prd.json" }),
      /gantry's folder/,
    );
  });

  it("following a removal does not remove through a folder that is a symlink (another tree's file behind it)", async () => {
    const { root, base } = fixture();
    git(root, "checkout", "-q", "-b", "gone", base);
    git(root, "rm", "-q", "src/a.js");
    git(root, "commit", "-q", "-m", "gone");
    const gone = git(root, "rev-parse", "HEAD");
    git(root, "checkout", "-q", "main");
    const elsewhere = mkdtempSync(join(tmpdir(), "gantry-merge-elsewhere-"));
    write(elsewhere, "a.js", "not this tree's\n");
    rmSync(join(root, "src"), { recursive: true, force: true });
    symlinkSync(elsewhere, join(root, "src"));
    assert.deepEqual(await followBranch(root, "", base, gone), ["src/a.js"]);
    assert.equal(readFileSync(join(elsewhere, "a.js"), "utf8"), "not this tree's\n");
    rmSync(elsewhere, { recursive: true, force: true });
  });
});

describe("moveWorktree and resetWorktree", () => {
  // They write files with no command the judge's cache counts: with nothing else run in between, a judge
  // that took the tree as the one judged before would bind the merged tree's verdicts to the story's tree.
  it("a judge after either sees the files they wrote, not the tree it judged before", async () => {
    const { root, base, branch } = fixture();
    const story = branch("story", { "src/b.js": "b\n" });
    const other = branch("other", { "src/c.js": "c\n" });
    git(root, "checkout", "-q", "story");
    const repo = await openRepo(root);
    try {
      const before = await repo.judge();
      assert.equal(before.tree, treeWithout(root, git(root, "rev-parse", "story^{tree}"), ".gantry"));
      const merged = await mergeTrees(root, other, story);
      assert.ok(merged.clean);
      await moveWorktree(root, story, merged.tree);
      const after = await repo.judge();
      assert.equal(after.tree, treeWithout(root, merged.tree, ".gantry"), "the merged tree, src/c.js in it");
      await resetWorktree(root, story);
      assert.deepEqual(await repo.judge(), before, "back to the story's tree");
      assert.notEqual(base, story);
    } finally {
      repo.close();
    }
  });
});

/** A tree without one top-level entry (the judge leaves .gantry/ out of what it judges). */
function treeWithout(root: string, tree: string, name: string): string {
  const entries = git(root, "ls-tree", tree)
    .split("\n")
    .filter((line) => !line.endsWith(`\t${name}`));
  return execFileSync("git", ["mktree"], {
    cwd: root,
    input: `${entries.join("\n")}\n`,
    encoding: "utf8",
  }).trim();
}
