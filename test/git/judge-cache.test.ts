import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { GitRepo } from "../../src/git/git-repo.js";
import { openRepo } from "../../src/git/repo.js";
import { execCommand } from "../../src/process/executor.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

/**
 * The judge's cache: a tree judged once per agent session, a stat check after commands started as
 * read-only. A read-only command that changes the tree anyway must never leave a verdict on the old tree.
 */
describe("judge cache", () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  async function fixture(): Promise<{ root: string; repo: GitRepo; base: string }> {
    const root = mkdtempSync(join(tmpdir(), "gantry-judge-cache-"));
    roots.push(root);
    write(root, "src/a.js", "export const a = 1;\n");
    write(root, "src/deep/b.js", "export const b = 1;\n");
    write(root, ".gitignore", "out/\n");
    write(root, ".gantry/config.json", "{}\n");
    commitAll(root);
    const repo = await openRepo(root);
    after(() => repo.close());
    return { root, repo, base: git(root, "rev-parse", "HEAD") };
  }

  const readOnly = (root: string, command: string) =>
    execCommand({ command, cwd: root, timeoutMs: 10_000, readsOnly: true });

  it("sees what a read-only command changed, added, or removed, and what it wrote where only ignored files go is no change", async () => {
    const { root, repo } = await fixture();
    write(root, "src/c.js", "export const c = 1;\n");
    const first = await repo.judge();
    assert.deepEqual(await repo.judge(), first, "nothing ran: the same tree");
    await readOnly(root, "mkdir -p out && echo log > out/run.log");
    assert.deepEqual(await repo.judge(), first, "an ignored file is not part of the tree");
    await readOnly(root, "echo 'export const a = 2;' > src/a.js");
    const edited = await repo.judge();
    assert.notEqual(edited.tree, first.tree, "a tracked file edited by a test run");
    assert.equal(git(root, "show", `${edited.tree}:src/a.js`), "export const a = 2;");
    await readOnly(root, "echo 'export const d = 1;' > src/deep/d.js");
    const added = await repo.judge();
    assert.notEqual(added.tree, edited.tree, "a new file written by a test run");
    await readOnly(root, "rm src/c.js");
    const removed = await repo.judge();
    assert.equal(git(root, "ls-tree", "-r", "--name-only", removed.tree).includes("src/c.js"), false);
  });

  it("a new file whose folder's mtime was set back is still seen (ctime moved)", async () => {
    const { root, repo } = await fixture();
    const first = await repo.judge();
    await readOnly(
      root,
      "t=$(stat -c %y src/deep) && echo 'export const e = 1;' > src/deep/e.js && touch -d \"$t\" src/deep",
    );
    const after = await repo.judge();
    assert.notEqual(after.tree, first.tree);
    assert.equal(git(root, "show", `${after.tree}:src/deep/e.js`), "export const e = 1;");
  });

  it("an edit by a process gantry did not start is seen by a recheck; a command that may write makes a full judge", async () => {
    const { root, repo } = await fixture();
    const first = await repo.judge();
    write(root, "src/a.js", "export const a = 3;\n");
    assert.notEqual((await repo.judge({ recheck: true })).tree, first.tree);
    const second = await repo.judge();
    await execCommand({ command: "echo x > src/x.js", cwd: root, timeoutMs: 10_000 });
    const third = await repo.judge();
    assert.notEqual(third.tree, second.tree);
  });

  it("deferStatCheck takes the judged tree after read-only commands; the recheck after it sees their edit; a writer still rebuilds", async () => {
    const { root, repo } = await fixture();
    const first = await repo.judge();
    await readOnly(root, "echo 'export const a = 4;' > src/a.js");
    assert.deepEqual(await repo.judge({ deferStatCheck: true }), first, "no look at the disk for review");
    assert.deepEqual(await repo.judge({ deferStatCheck: true }), first, "nor again while nothing else ran");
    const checked = await repo.judge({ recheck: true, deferStatCheck: true });
    assert.notEqual(checked.tree, first.tree, "the recheck always looks");
    assert.equal(git(root, "show", `${checked.tree}:src/a.js`), "export const a = 4;");
    await execCommand({ command: "echo 'export const a = 5;' > src/a.js", cwd: root, timeoutMs: 10_000 });
    const rebuilt = await repo.judge({ deferStatCheck: true });
    assert.equal(git(root, "show", `${rebuilt.tree}:src/a.js`), "export const a = 5;", "after a writer");
  });

  it("changed files come from two trees; a tree's files are listed", async () => {
    const { root, repo, base } = await fixture();
    write(root, "src/new.js", "export const n = 1;\n");
    await execCommand({ command: "rm src/a.js", cwd: root, timeoutMs: 10_000 });
    const judged = await repo.judge();
    assert.deepEqual(await repo.changedFiles(base, judged.tree), ["src/a.js", "src/new.js"]);
    assert.deepEqual(await repo.treeFiles(judged.tree), [".gitignore", "src/deep/b.js", "src/new.js"]);
  });
});
