import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { TreeFileLists } from "../../src/git/tree-file-lists.js";
import { git, write } from "../support/fixture-repo.js";
import { committedRepo } from "../support/git-fixtures.js";

/** Who commits in these fixtures. */
const AS_T = ["-c", "user.name=t", "-c", "user.email=t@example.com"];

/** A tree per commit: `n` more commits, each adding one file; their trees, oldest first. */
function moreTrees(top: string, n: number): string[] {
  const trees: string[] = [];
  for (let i = 0; i < n; i++) {
    write(top, `more/${i}.txt`, `${i}\n`);
    git(top, "add", "-A");
    git(top, ...AS_T, "commit", "-q", "-m", `more ${i}`);
    trees.push(git(top, "rev-parse", "HEAD^{tree}"));
  }
  return trees;
}

describe("every file of a tree, listed once per tree", () => {
  it("lists a tree's files relative to the project root, from the top level or a subfolder", async () => {
    const top = committedRepo({ "a.txt": "a\n", "pkg/src/x.ts": "x\n", "pkg/y.ts": "y\n" }, "tree-lists");
    const tree = git(top, "rev-parse", "HEAD^{tree}");
    assert.deepEqual(await new TreeFileLists(top).files(tree), ["a.txt", "pkg/src/x.ts", "pkg/y.ts"]);
    assert.deepEqual(await new TreeFileLists(join(top, "pkg")).files(tree), ["src/x.ts", "y.ts"]);
  });

  it("gives the same listing for a tree asked again, forgets a failed one, and keeps at most eight trees", async () => {
    const top = committedRepo({ "a.txt": "a\n" }, "tree-lists-kept");
    const lists = new TreeFileLists(top);
    const first = git(top, "rev-parse", "HEAD^{tree}");
    const listing = lists.files(first);
    assert.equal(lists.files(first), listing, "one ls-tree for the tree");

    const missing = "1".repeat(40);
    const failed = lists.files(missing);
    await assert.rejects(failed);
    const again = lists.files(missing);
    assert.notEqual(again, failed, "a failed listing is asked again");
    await assert.rejects(again);

    // Seven more trees fill the eight; the ninth drops them all.
    const trees = moreTrees(top, 8);
    for (const tree of trees.slice(0, 7)) await lists.files(tree);
    assert.equal(lists.files(first), listing, "still kept among eight");
    assert.deepEqual(await lists.files(trees[7] as string), [
      "a.txt",
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => `more/${i}.txt`),
    ]);
    const relisted = lists.files(first);
    assert.notEqual(relisted, listing, "past eight trees it is made again");
    assert.deepEqual(await relisted, await listing);
  });
});
