import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createPrivateGit, type PrivateGit } from "../../src/git/hermetic.js";
import { judgeTree, type TreeScope } from "../../src/git/judge.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

/**
 * What one judge costs in git programs, read from git's own trace (GIT_TRACE names every git command
 * started, the judge script's included), and how much it remembers: a tree judged again is not looked
 * at again, and the memory of judged trees has a bound.
 */
describe("the judge's git programs and its memory of judged trees", () => {
  const cleanup: (() => void)[] = [];
  after(() => {
    for (const step of cleanup) step();
  });

  async function fixture(): Promise<{
    root: string;
    scope: TreeScope;
    head: string;
    commands: () => string[];
  }> {
    const root = mkdtempSync(join(tmpdir(), "gantry-judge-cost-"));
    write(root, "src/a.js", "export const a = 1;\n");
    commitAll(root);
    const dotGit = join(root, ".git");
    const privateGit: PrivateGit = await createPrivateGit({ top: root, gitDir: dotGit, commonDir: dotGit });
    cleanup.push(() => {
      privateGit.dispose();
      rmSync(root, { recursive: true, force: true });
    });
    const trace = join(privateGit.dir, "trace.txt");
    writeFileSync(trace, "");
    const scope: TreeScope = {
      cwd: root,
      top: root,
      prefix: "",
      git: { ...privateGit, env: { ...privateGit.env, GIT_TRACE: trace } },
      index: {},
      checked: new Map(),
    };
    // Each git program started, by its subcommand, in order; the trace is emptied on each read.
    const commands = () => {
      const lines = readFileSync(trace, "utf8").split("\n");
      writeFileSync(trace, "");
      return lines.flatMap((line) => {
        const match = /trace: built-in: git (?:-c \S+ )*(\S+)/.exec(line);
        return match?.[1] ? [match[1]] : [];
      });
    };
    return { root, scope, head: git(root, "rev-parse", "HEAD"), commands };
  }

  it("an ordinary change: the judge script's programs and nothing else; a symlink's target is read once per tree", async () => {
    const { root, scope, head, commands } = await fixture();
    const unchanged = await judgeTree(scope, head);
    // The diff against HEAD is read from the objects in node (judged-tree-in-node.ts), whatever the size;
    // the index is read from HEAD's tree without .gantry, written in node (head-without-gantry.ts): no `rm`.
    assert.deepEqual(commands(), ["read-tree", "add", "write-tree"]);
    assert.deepEqual(
      scope.sameAsHead,
      { head, tree: unchanged, same: true },
      "HEAD's content: said by the judge",
    );
    write(root, "src/b.js", "export const b = 1;\n");
    const changed = await judgeTree(scope, head);
    assert.deepEqual(scope.sameAsHead, { head, tree: changed, same: false });
    assert.equal(scope.lastDiff?.head, head);
    assert.equal(scope.lastDiff?.tree, changed);
    assert.match(
      scope.lastDiff?.raw ?? "",
      /^:000000 100644 0{40} [0-9a-f]{40} A\0src\/b\.js\0$/,
      "the diff it read, kept",
    );
    assert.deepEqual(
      commands(),
      ["add"],
      "the index is already on HEAD; a small index's tree and diff are written and read in node",
    );

    symlinkSync("a.js", join(root, "src/link.js"));
    const tree = await judgeTree(scope, head);
    assert.deepEqual(commands(), ["add", "cat-file"], "a new symlink: its target read");
    assert.equal(await judgeTree(scope, head), tree);
    assert.deepEqual(commands(), ["add"], "the same tree again: remembered, its diff too");
    assert.equal(scope.lastDiff?.tree, tree);
    assert.match(scope.lastDiff?.raw ?? "", /A\0src\/link\.js\0/, "the diff known from before");
  });

  it("remembers at most 65 judged trees: the memory is emptied, not grown, past its bound", async () => {
    const { root, scope, head } = await fixture();
    for (let i = 0; i < 64; i += 1) scope.checked.set(`${head} ${String(i).padStart(40, "0")}`, []);
    write(root, "src/b.js", "export const b = 1;\n");
    await judgeTree(scope, head);
    assert.equal(scope.checked.size, 65, "64 remembered trees and this one");
    write(root, "src/b.js", "export const b = 2;\n");
    const tree = await judgeTree(scope, head);
    assert.deepEqual(
      [...scope.checked.keys()],
      [`${head} ${tree}`],
      "past the bound: emptied, then this one",
    );
  });
});
