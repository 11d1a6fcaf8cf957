import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SameContents } from "../../src/git/same-contents.js";
import { git, write } from "../support/fixture-repo.js";
import { committedRepo } from "../support/git-fixtures.js";

const outside = [":(exclude,top).gantry"];

/** The tree of the working tree as it is now (everything added), without moving HEAD. */
function treeNow(top: string): string {
  git(top, "add", "-A");
  const tree = git(top, "write-tree");
  git(top, "reset", "-q");
  return tree;
}

describe("whether a commit holds a judged tree's content", () => {
  it("is git's diff-tree with .gantry/ aside", async () => {
    const top = committedRepo({ ".gantry/config.json": "{}\n", "src/a.ts": "a\n" }, "same-contents");
    const head = git(top, "rev-parse", "HEAD");
    const same = new SameContents(top, outside);
    assert.equal(await same.same(head, git(top, "rev-parse", "HEAD^{tree}")), true);
    write(top, ".gantry/config.json", '{"changed":true}\n');
    assert.equal(await same.same(head, treeNow(top)), true, "gantry's own files do not count");
    write(top, "src/a.ts", "changed\n");
    assert.equal(await same.same(head, treeNow(top)), false);
  });

  it("takes a judge's answer for two object ids, asks git for a name each time, and keeps at most 64 pairs", async () => {
    const top = committedRepo({ "src/a.ts": "a\n" }, "same-contents-kept");
    const head = git(top, "rev-parse", "HEAD");
    const tree = git(top, "rev-parse", "HEAD^{tree}");
    const same = new SameContents(top, outside);
    // An answer git would not give tells the judge's from git's.
    same.remember(head, tree, false);
    assert.equal(await same.same(head, tree), false, "the judge's answer, no git");
    same.remember("HEAD", tree, false);
    assert.equal(await same.same("HEAD", tree), true, "a name is asked of git");

    const fresh = new SameContents(top, outside);
    fresh.remember(head, tree, false);
    for (let i = 0; i < 64; i++) fresh.remember(i.toString(16).padStart(40, "0"), tree, true);
    assert.equal(await fresh.same(head, tree), true, "past 64 pairs the answers are dropped and git asked");

    // git's answer for two ids is kept: asked again once git could no longer answer, it stands.
    write(top, ".gantry/config.json", "{}\n");
    const withGantry = treeNow(top);
    assert.equal(await same.same(head, withGantry), true);
    rmSync(join(top, ".git", "objects", withGantry.slice(0, 2), withGantry.slice(2)));
    assert.equal(await same.same(head, withGantry), true, "kept, not asked again");
    assert.equal(await new SameContents(top, outside).same(head, withGantry), false, "git now fails");
  });
});
