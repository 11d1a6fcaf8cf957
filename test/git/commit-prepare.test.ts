import assert from "node:assert/strict";
import { copyFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { git } from "../support/fixture-repo.js";
import { gantryProject, gitReadTreeOf, indexDebug } from "../support/git-fixtures.js";

const staged = (top: string) => git(top, "ls-files", "-s").replace(/ 0\t/g, "\t");
const headTree = (top: string) => git(top, "ls-tree", "-r", "HEAD").replace(/ (blob|commit) /g, " ");
const prd = (top: string) => join(top, ".gantry/features/f/prd.json");
const committedAt = (top: string) => Number(git(top, "log", "-1", "--format=%ct"));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The commit is HEAD with the judged content, the user's index is git's read-tree of it, fsck is clean. */
function assertCommitted(top: string, file: string, content: string, prdText: string): void {
  assert.equal(git(top, "show", `HEAD:${file}`), content.trim());
  assert.equal(git(top, "show", "HEAD:.gantry/features/f/prd.json"), prdText.trim());
  assert.equal(staged(top), headTree(top));
  assert.equal(git(top, "status", "--porcelain"), "");
  git(top, "fsck", "--strict", "--no-progress");
}

describe("a commit made ahead while completion's status runs", () => {
  it("is the commit made when the tree and prd.json are as prepared; dropped when either is not", async () => {
    const top = gantryProject("ahead");
    const repo = await openRepo(top);
    // 1. Made ahead and taken: the commit's time is the preparation's, a second and more before the commit.
    writeFileSync(join(top, "src/a.ts"), "a\n");
    await repo.judge({ recheck: true });
    const started = Math.floor(Date.now() / 1000);
    repo.prepareCommit?.("gantry(US-1): one", new Map([[prd(top), Buffer.from('{"done":1}\n')]]));
    let judged = await repo.judge({ recheck: true });
    await sleep(1000 * (started + 2) - Date.now());
    writeFileSync(prd(top), '{"done":1}\n');
    await repo.commitJudged(judged, "gantry(US-1): one");
    assert.ok(committedAt(top) <= started + 1, "the commit object made ahead");
    assertCommitted(top, "src/a.ts", "a\n", '{"done":1}\n');
    // 2. A file changed after the preparation: the recheck judges another tree, the commit is made again.
    writeFileSync(join(top, "src/b.ts"), "b\n");
    await repo.judge({ recheck: true });
    repo.prepareCommit?.("gantry(US-2): two", new Map([[prd(top), Buffer.from('{"done":2}\n')]]));
    writeFileSync(join(top, "src/b.ts"), "b changed\n");
    judged = await repo.judge({ recheck: true });
    writeFileSync(prd(top), '{"done":2}\n');
    await repo.commitJudged(judged, "gantry(US-2): two");
    assertCommitted(top, "src/b.ts", "b changed\n", '{"done":2}\n');
    // 3. prd.json written with other content than previewed: the tree from the disk, not the preview.
    writeFileSync(join(top, "src/c.ts"), "c\n");
    await repo.judge({ recheck: true });
    repo.prepareCommit?.("gantry(US-3): three", new Map([[prd(top), Buffer.from('{"done":"preview"}\n')]]));
    judged = await repo.judge({ recheck: true });
    writeFileSync(prd(top), '{"done":3}\n');
    await repo.commitJudged(judged, "gantry(US-3): three");
    assertCommitted(top, "src/c.ts", "c\n", '{"done":3}\n');
    // 4. The user's index written by git after the preparation merged it (src/x.ts's stat data refreshed):
    // merged again under the lock, as git's read-tree -m -i of that index gives.
    writeFileSync(join(top, "src/d.ts"), "d\n");
    // Every tracked file a minute old in the index git last wrote: no racy entry for the merge made ahead.
    const minute = new Date(Date.now() - 60_000);
    for (const path of git(top, "ls-files").split("\n")) utimesSync(join(top, path), minute, minute);
    git(top, "update-index", "-q", "--refresh");
    await repo.judge({ recheck: true });
    repo.prepareCommit?.("gantry(US-4): four", new Map([[prd(top), Buffer.from('{"done":4}\n')]]));
    judged = await repo.judge({ recheck: true });
    const later = new Date(Date.now() - 30_000);
    utimesSync(join(top, "src/x.ts"), later, later);
    git(top, "update-index", "-q", "--refresh");
    const before = join(top, ".git/index-before");
    copyFileSync(join(top, ".git/index"), before);
    writeFileSync(prd(top), '{"done":4}\n');
    await repo.commitJudged(judged, "gantry(US-4): four");
    // Before git's status refreshes it (assertCommitted).
    assert.equal(indexDebug(top, join(top, ".git/index")), gitReadTreeOf(top, before));
    assertCommitted(top, "src/d.ts", "d\n", '{"done":4}\n');
    repo.close();
  });
});
