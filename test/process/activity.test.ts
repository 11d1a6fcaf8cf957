import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { activity, noteCommand, realTree } from "../../src/process/activity.js";

/**
 * What ran, by the trees it could reach: a command with a write scope counts for the trees it can write
 * and for those outside every shielded folder; one without counts for every tree.
 */
describe("activity by tree", () => {
  const scratch = realTree(mkdtempSync(join(tmpdir(), "gantry-activity-"))) as string;
  after(() => rmSync(scratch, { recursive: true, force: true }));
  const main = join(scratch, "main");
  const common = join(main, ".git");
  const worktree = (id: string) => join(common, "gantry", "worktrees", "f", id);
  const [a, b] = [worktree("A"), worktree("B")];
  const elsewhere = join(scratch, "elsewhere");
  for (const dir of [a, b, elsewhere]) mkdirSync(dir, { recursive: true });
  mkdirSync(join(a, "pkg"));
  /** A worker's sandbox: its worktree (or a folder in it) writable, the repository read-only. */
  const worker = (tree: string) => ({ tree, shielded: [main, common] });
  const moved = (tree: string, run: () => void) => {
    const before = activity(tree);
    run();
    const now = activity(tree);
    return now.started !== before.started || now.writers !== before.writers;
  };

  it("a sandboxed command counts for its own worktree, not for another one nor the main tree", () => {
    const ended = noteCommand(true, worker(a));
    assert.equal(activity(a).running, activity(b).running + 1, "running in A only");
    ended();
    for (const [tree, reached] of [
      [a, true],
      [b, false],
      [main, false],
      [elsewhere, true],
    ] as const)
      assert.equal(
        moved(tree, () => noteCommand(true, worker(a))()),
        reached,
        `${tree} reached: ${reached}`,
      );
    assert.equal(
      moved(a, () => noteCommand(false, worker(join(a, "pkg")))()),
      true,
      "a folder of the tree: the tree",
    );
  });

  it("a command without a scope, or one whose paths do not resolve, counts for every tree", () => {
    for (const tree of [a, b, main, elsewhere]) {
      assert.equal(
        moved(tree, () => noteCommand(false)()),
        true,
      );
      assert.equal(
        moved(tree, () => noteCommand(true, worker(join(scratch, "gone")))()),
        true,
      );
    }
  });

  it("gantry's git writing one worktree (shielded everywhere) reaches that tree alone; the main tree's checkout does not reach the worktrees under its .git", () => {
    const only = (tree: string) => ({ tree, shielded: ["/"] });
    assert.equal(
      moved(b, () => noteCommand(true, only(a))()),
      false,
    );
    assert.equal(
      moved(a, () => noteCommand(true, only(a))()),
      true,
    );
    assert.equal(
      moved(a, () => noteCommand(true, only(main))()),
      false,
    );
    assert.equal(
      moved(main, () => noteCommand(true, only(main))()),
      true,
    );
    assert.equal(
      moved(main, () => noteCommand(true, only(a))()),
      false,
    );
  });

  it("paths are compared as real paths: a tree named through a symlink is the same tree", () => {
    const link = join(scratch, "link-to-a");
    symlinkSync(a, link);
    assert.equal(
      moved(a, () => noteCommand(true, worker(link))()),
      true,
    );
    assert.equal(realTree(link), a);
    assert.equal(realTree(join(scratch, "gone")), undefined);
  });

  it("no tree named: everything counts", () => {
    assert.equal(
      moved(undefined as unknown as string, () => noteCommand(true, worker(a))()),
      true,
    );
  });
});
