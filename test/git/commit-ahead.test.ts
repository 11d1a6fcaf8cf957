import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { gantryProject, largeRepo } from "../support/git-fixtures.js";

/** Whether the repository at `top` would make a story's commit ahead, and that a commit still lands. */
async function aheadPays(top: string): Promise<boolean | undefined> {
  const repo = await openRepo(top);
  try {
    const pays = repo.commitAheadPays?.();
    writeFileSync(join(top, "story.txt"), "done\n");
    const judged = await repo.judge({ recheck: true });
    if (pays) repo.prepareCommit?.("gantry(US-1): one", new Map());
    const commit = await repo.commitJudged(judged, "gantry(US-1): one");
    assert.equal(commit, await repo.head());
    return pays;
  } finally {
    repo.close();
  }
}

describe("the commit made ahead, only where it pays", () => {
  it("is not made for a small user's index (git's status is quicker than it), and is for a large one", async () => {
    assert.equal(await aheadPays(gantryProject("ahead-small")), false);
    assert.equal(await aheadPays(largeRepo("ahead-large")), true);
  });
});
