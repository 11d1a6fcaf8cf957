import assert from "node:assert/strict";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { readHead } from "../../src/git/head-file.js";
import { createPrivateGit } from "../../src/git/hermetic.js";
import type { TreeScope } from "../../src/git/judge.js";
import { JudgedTreeCache } from "../../src/git/judged-tree-cache.js";
import { SameContents } from "../../src/git/same-contents.js";
import { activity, realTree } from "../../src/process/activity.js";
import { git, write } from "../support/fixture-repo.js";
import { committedRepo } from "../support/git-fixtures.js";

/** Who commits in these fixtures. */
const AS_T = ["-c", "user.name=t", "-c", "user.email=t@example.com"];

/** A JudgedTreeCache over a committed repository's private index, wired as openRepo wires it. */
async function fixture(name: string): Promise<{ top: string; cache: JudgedTreeCache; scope: TreeScope }> {
  const top = committedRepo({ ".gantry/config.json": "{}\n", "src/a.js": "a\n", "lib/b.js": "b\n" }, name);
  const gitDir = join(top, ".git");
  const privateGit = await createPrivateGit({ top, gitDir, commonDir: gitDir });
  after(() => privateGit.dispose());
  const userIndex = join(gitDir, "index");
  const scope: TreeScope = {
    cwd: top,
    top,
    prefix: "",
    git: privateGit,
    index: {},
    checked: new Map(),
    userIndex,
  };
  const reach = realTree(top);
  const cache = new JudgedTreeCache({
    top,
    prefix: "",
    userIndex,
    hashBytes: 20,
    head: () => readHead(top, gitDir),
    scope: async () => scope,
    ranHere: () => activity(reach),
    ignoredPaths: () => undefined,
    sameContents: new SameContents(top, [":(exclude,top).gantry"]),
  });
  return { top, cache, scope };
}

/** Besides the judge itself (judge-cache.test.ts): what it keeps of the last tree for the listing and the commit. */
describe("the judged tree the judge keeps", () => {
  it("answers for the private index's paths in some folders from the last judged tree, only while its scope is current", async () => {
    const { top, cache, scope } = await fixture("judged-paths");
    assert.equal(cache.indexedPaths(["src/"], scope), undefined, "no judge yet");
    write(top, "src/new.js", "n\n");
    write(top, "src/deep/c.js", "c\n");
    const judged = await cache.judge();
    assert.equal(cache.lastTree, judged.tree);
    const indexed = cache.indexedPaths(["src/", ""], scope);
    assert.deepEqual([...(indexed?.files ?? [])].sort(), ["src/a.js", "src/new.js"]);
    assert.deepEqual([...(indexed?.folders ?? [])].sort(), ["lib/", "src/", "src/deep/"]);
    assert.equal(cache.indexedPaths(["src/"], undefined), undefined, "the repository closed");
    const other = { ...scope };
    assert.equal(cache.indexedPaths(["src/"], other), undefined, "another scope's index");
  });

  it("gives the last judged tree to the commit of that tree only, and takes it back on top of the commit", async () => {
    const { top, cache } = await fixture("judged-take");
    write(top, "src/new.js", "n\n");
    const judged = await cache.judge();
    assert.equal(cache.takeLast({ sha: judged.sha, tree: "f".repeat(40) }), undefined, "another tree");
    assert.equal(cache.last, undefined, "taken out all the same: the commit rewrites the private index");

    const again = await cache.judge();
    assert.deepEqual(again, judged);
    const last = cache.takeLast(again);
    assert.equal(last?.tree, judged.tree);
    assert.equal(cache.last, undefined);

    // The commit of that tree (its content, with .gantry/ as HEAD has it), then the judged tree carried to it.
    git(top, "add", "-A");
    git(top, ...AS_T, "commit", "-q", "-m", "gantry(US-1): one");
    const commit = git(top, "rev-parse", "HEAD");
    cache.carried(last as NonNullable<typeof last>, commit);
    // (read through a function: the assertions above narrowed `cache.last` for the compiler)
    const lastNow = () => cache.last;
    assert.equal(lastNow()?.sha, commit);
    // Nothing ran since: the next judge takes the carried tree without looking (an edit no command made is
    // not seen until one runs, as for any tree judged).
    write(top, "src/unseen.js", "u\n");
    assert.deepEqual(await cache.judge(), { sha: commit, tree: judged.tree });
    assert.notEqual((await cache.judge({ recheck: true })).tree, judged.tree, "a recheck looks at the disk");
  });
});
