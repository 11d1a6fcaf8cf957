import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { headTreeWithoutGantry } from "../../src/git/head-without-gantry.js";
import { createPrivateGit } from "../../src/git/hermetic.js";
import { judgeTree } from "../../src/git/judge.js";
import { committedRepo } from "../support/git-fixtures.js";

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env } }).trim();

/** A committed repository holding these files. */
const repo = (files: Record<string, string>) => committedRepo(files, "head-nog");

/** What the judge's script did before: HEAD read into an index, then `git rm --cached .gantry`, as a tree. */
function byGit(top: string): string {
  const env = { GIT_INDEX_FILE: join(top, ".git", "probe-index") };
  git(top, ["read-tree", "HEAD"], env);
  git(top, ["rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", ":(top).gantry"], env);
  const tree = git(top, ["write-tree"], env);
  rmSync(env.GIT_INDEX_FILE);
  return tree;
}

describe("HEAD's tree without .gantry, for the first judge's private index", () => {
  it("is the tree git's read-tree and rm --cached leave, names around .gantry's kept", () => {
    const top = repo({
      ".gantry/config.json": "{}\n",
      ".gantry/features/f/prd.json": "{}\n",
      ".gantry-notes": "n\n",
      ".gantryx/a": "a\n",
      ".gantr": "b\n",
      "src/.gantry/inner.txt": "below the top: judged\n",
      "src/x.ts": "1\n",
    });
    const head = git(top, ["rev-parse", "HEAD"]);
    const tree = headTreeWithoutGantry(join(top, ".git", "objects"), head, "");
    assert.equal(tree, byGit(top));
    assert.doesNotMatch(git(top, ["ls-tree", "-r", "--name-only", tree ?? ""]), /^\.gantry\//m);
    assert.match(git(top, ["ls-tree", "-r", "--name-only", tree ?? ""]), /^src\/\.gantry\/inner\.txt$/m);
    git(top, ["fsck", "--strict", "--no-progress"]);
  });

  it("is HEAD's own tree when there is no .gantry, and git's work below the top level", () => {
    const top = repo({ "a.txt": "a\n" });
    const head = git(top, ["rev-parse", "HEAD"]);
    assert.equal(
      headTreeWithoutGantry(join(top, ".git", "objects"), head, ""),
      git(top, ["rev-parse", "HEAD^{tree}"]),
    );
    assert.equal(headTreeWithoutGantry(join(top, ".git", "objects"), head, "pkg/"), undefined);
    // An object it cannot read: git's rm then (a fresh id, so no object this process has read answers it).
    assert.equal(headTreeWithoutGantry(join(top, ".git", "objects"), "1".repeat(40), ""), undefined);
  });

  it("gives the first judge the same tree as before, with HEAD's files' stat data from its add", async () => {
    const top = repo({ ".gantry/config.json": "{}\n", "src/x.ts": "1\n", "b.txt": "b\n" });
    writeFileSync(join(top, "src/x.ts"), "2\n");
    writeFileSync(join(top, "new.txt"), "n\n");
    const head = git(top, ["rev-parse", "HEAD"]);
    const privateGit = await createPrivateGit({
      top,
      gitDir: join(top, ".git"),
      commonDir: join(top, ".git"),
    });
    try {
      const scope = { cwd: top, top, prefix: "", git: privateGit, index: {}, checked: new Map() };
      const tree = await judgeTree(scope, head);
      git(top, ["add", "-A"]);
      git(top, ["rm", "-r", "-q", "--cached", ".gantry"]);
      assert.equal(tree, git(top, ["write-tree"]));
      assert.equal(
        git(top, ["ls-files", "--debug", "--", "b.txt"], privateGit.env).includes("size: 2"),
        true,
      );
    } finally {
      privateGit.dispose();
    }
  });
});
