import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  addWorktree,
  commonDirOf,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
} from "../../src/git/worktree.js";
import { addScratchWorktree } from "../../src/verification/strategies/scratch-worktree.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

async function repository() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-worktree-")));
  for (let i = 0; i < 40; i++) write(root, `src/f${i}.js`, `export const f${i} = ${i};\n`);
  commitAll(root);
  return { root, commonDir: await commonDirOf(root), head: git(root, "rev-parse", "HEAD") };
}

describe("git's worktree records, changed by many workers at once", () => {
  it("adds, lists and removes story and scratch worktrees side by side without losing or breaking a record", async () => {
    const { root, commonDir, head } = await repository();
    const holder = realpathSync(mkdtempSync(join(tmpdir(), "gantry-worktree-at-")));
    // Four rounds of six workers: each makes a worktree (a branch of its own, or a detached scratch one),
    // reads it, lists every worktree, and removes its own, while the others do the same.
    for (let round = 0; round < 4; round++) {
      await Promise.all(
        Array.from({ length: 6 }, async (_, n) => {
          if (n % 2 === 0) {
            const scratch = await addScratchWorktree(root, head);
            assert.equal(readFileSync(join(scratch.top, "src/f3.js"), "utf8"), "export const f3 = 3;\n");
            await listWorktrees(root, commonDir);
            await scratch.remove();
            return;
          }
          const branch = `w${round}-${n}`;
          git(root, "branch", branch, head);
          const path = join(holder, branch);
          await addWorktree({ cwd: root, commonDir, path, ref: branch });
          // git wrote the index with the files: nothing reads as changed.
          assert.equal(git(path, "diff-files", "--name-only"), "");
          assert.ok((await listWorktrees(root, commonDir)).some((w) => w.path === path));
          await pruneWorktrees(root, commonDir);
          await removeWorktree(root, commonDir, path);
          assert.equal(existsSync(path), false);
        }),
      );
    }
    assert.equal(git(root, "worktree", "list").trim().split("\n").length, 1);
    const records = join(commonDir, "worktrees");
    assert.deepEqual(existsSync(records) ? readdirSync(records) : [], []);
  });

  it("names each scratch worktree's record after its own unique folder", async () => {
    const { root, head } = await repository();
    const [a, b] = await Promise.all([addScratchWorktree(root, head), addScratchWorktree(root, head)]);
    assert.ok(a && b);
    const names = readdirSync(join(root, ".git", "worktrees")).sort();
    assert.deepEqual(names, [a.top, b.top].map((top) => top.split("/").at(-1)).sort());
    await Promise.all([a.remove(), b.remove()]);
  });
});

describe("the git that worktree records are changed with", () => {
  it("is the system's git, never a `git` found first on PATH", async () => {
    const { root, commonDir } = await repository();
    const planted = realpathSync(mkdtempSync(join(tmpdir(), "gantry-planted-bin-")));
    const marker = join(planted, "ran");
    writeFileSync(join(planted, "git"), `#!/bin/sh\necho "$@" >> ${marker}\nexec /usr/bin/git "$@"\n`, {
      mode: 0o755,
    });
    const path = join(realpathSync(mkdtempSync(join(tmpdir(), "gantry-worktree-at-"))), "w");
    const before = process.env.PATH;
    process.env.PATH = `${planted}:${before}`;
    try {
      await addWorktree({ cwd: root, commonDir, path, ref: "HEAD", detach: true });
      assert.ok((await listWorktrees(root, commonDir)).some((w) => w.path === path));
      await removeWorktree(root, commonDir, path);
    } finally {
      process.env.PATH = before;
    }
    assert.equal(existsSync(path), false);
    assert.equal(
      existsSync(marker),
      false,
      `the planted git ran: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`,
    );
  });
});
