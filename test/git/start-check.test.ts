import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { largeIndexFile } from "../../src/git/add-on-two-cores.js";
import { openRepo } from "../../src/git/repo.js";
import { git } from "../support/fixture-repo.js";
import { largeRepo } from "../support/git-fixtures.js";

/** A committed repository large enough for the start's judge (and its two-core add): 20 folders of files. */
const top = largeRepo("start-check");

/** What the start check says in a fresh GitRepo, beside what status says. */
async function startCheck(): Promise<{ start: string[]; status: string[]; tree?: string }> {
  const repo = await openRepo(top);
  try {
    const start = await repo.uncommittedAtStart();
    const status = await repo.dirtyFiles();
    // The judged tree is kept for the first session: judging again with nothing run is the same tree.
    const tree = start.length === 0 ? (await repo.judge()).tree : undefined;
    return { start, status, ...(tree ? { tree } : {}) };
  } finally {
    repo.close();
  }
}

describe("the run's start check from its first judge", () => {
  it("finds nothing in a clean tree (HEAD's tree without .gantry judged), and what status finds otherwise", async () => {
    assert.ok(largeIndexFile(join(top, ".git", "index")), "large enough for the judge to answer");
    const clean = await startCheck();
    assert.deepEqual(clean.start, []);
    const withoutGantry = execFileSync("git", ["mktree"], {
      cwd: top,
      input: `${git(top, "ls-tree", "HEAD")
        .split("\n")
        .filter((line) => !line.endsWith("\t.gantry"))
        .join("\n")}\n`,
      encoding: "utf8",
    }).trim();
    assert.equal(clean.tree, withoutGantry);
    // gantry's own files are not dirt.
    writeFileSync(join(top, ".gantry", "config.json"), '{"x":1}\n');
    assert.deepEqual((await startCheck()).start, []);
    git(top, "checkout", "-q", "--", ".gantry");

    // Modified, untracked, staged only (the working tree put back to HEAD's bytes after `git add`).
    writeFileSync(join(top, "m3", "file-1-named-as-in-a-real-project.txt"), "changed\n");
    writeFileSync(join(top, "m17", "new.txt"), "new\n");
    const edited = await startCheck();
    assert.deepEqual(edited.start, edited.status);
    assert.deepEqual([...edited.start].sort(), ["m17/new.txt", "m3/file-1-named-as-in-a-real-project.txt"]);
    git(top, "checkout", "-q", "--", "m3");
    rmSync(join(top, "m17", "new.txt"));
    writeFileSync(join(top, "m9", "file-2-named-as-in-a-real-project.txt"), "staged\n");
    git(top, "add", "m9/file-2-named-as-in-a-real-project.txt");
    writeFileSync(join(top, "m9", "file-2-named-as-in-a-real-project.txt"), "9 2\n");
    const staged = await startCheck();
    assert.deepEqual(staged.start, staged.status);
    assert.deepEqual(staged.start, ["m9/file-2-named-as-in-a-real-project.txt"]);
    git(top, "reset", "-q");

    // A tree the judge refuses (an untracked nested repository): status answers, as before.
    mkdirSync(join(top, "m5", "nested"));
    git(join(top, "m5", "nested"), "init", "-q");
    writeFileSync(join(top, "m5", "nested", "a.txt"), "a\n");
    const nested = await startCheck();
    assert.deepEqual(nested.start, nested.status);
    assert.ok(nested.start.length > 0, "a nested repository is uncommitted work");
    rmSync(join(top, "m5", "nested"), { recursive: true });
    assert.deepEqual((await startCheck()).start, []);
  });
});
