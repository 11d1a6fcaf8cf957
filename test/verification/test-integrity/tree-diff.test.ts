import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  changedLines,
  EMPTY_TREE,
  readAt,
  treeChanges,
} from "../../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../../support/fixture-repo.js";

const commit = (root: string, message: string): string => {
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", message);
  return git(root, "rev-parse", "HEAD");
};
const treeOf = (root: string, rev: string): string => git(root, "rev-parse", `${rev}^{tree}`);
const numbered = (from: number, to: number, tag = "line"): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `${tag} ${from + i}\n`).join("");
/** A root no git runs in: a call that reaches git there throws. */
const NO_REPO = "/nonexistent/gantry-tree-diff";

/**
 * What a story changed, read from two git objects (the base and the judged tree): the changed paths with
 * renames, and the added and removed lines of chosen files, which the skip/only marker checks read.
 */
describe("test-integrity: the story's change between its base and the judged tree", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-tree-diff-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  git(root, "init", "-q", "-b", "main");
  write(root, "app/keep.txt", "unchanged\n");
  write(root, "app/edit.txt", numbered(1, 10));
  write(root, "app/gone.txt", "deleted by the story\n");
  write(root, "app/old-name.test.js", numbered(1, 20, "test"));
  write(root, "app/type.txt", "a file that becomes a link\n");
  write(root, "app/node_modules/dep.js", "dependency\n");
  write(root, "app/node_modules/moved.js", `${numbered(1, 20, "moved")}moved out of node_modules\n`);
  write(root, "app/dist/both.js", `${numbered(1, 20, "built")}built\n`);
  write(root, "app/.gantry/config.json", `${numbered(1, 20, "own")}gantry's own\n`);
  const base = commit(root, "base");
  write(root, "app/edit.txt", numbered(1, 10).replace("line 2\n", "line two\n").replace("line 9\n", ""));
  write(root, "app/new.txt", "added\n");
  unlinkSync(join(root, "app/gone.txt"));
  git(root, "mv", "app/old-name.test.js", "app/new-name.test.js");
  write(
    root,
    "app/new-name.test.js",
    numbered(1, 20, "test").replace("test 20\n", "test 20\nit.skip('x')\n"),
  );
  unlinkSync(join(root, "app/type.txt"));
  symlinkSync("keep.txt", join(root, "app/type.txt"));
  write(root, "app/node_modules/dep.js", "dependency, changed\n");
  mkdirSync(join(root, "app/lib"));
  git(root, "mv", "app/node_modules/moved.js", "app/lib/moved.js");
  git(root, "mv", "app/dist/both.js", "app/dist/both2.js");
  unlinkSync(join(root, "app/.gantry/config.json"));
  write(root, "app/from-gantry.json", `${numbered(1, 20, "own")}gantry's own\n`);
  write(root, "app/tab\tname.test.js", "one\n");
  write(root, "app/ütf.test.js", "eins\n");
  const head = commit(root, "story");
  const app = join(root, "app");
  const tree = treeOf(root, head);

  it("lists every change relative to the project root, renames paired, skipped folders and .gantry/ left out", async () => {
    const changes = await treeChanges(app, base, tree);
    const byPath = new Map(changes.map((change) => [change.path, change]));
    assert.deepEqual(
      [...byPath.keys()].sort(),
      [
        "edit.txt",
        "from-gantry.json",
        "gone.txt",
        "lib/moved.js",
        "new-name.test.js",
        "new.txt",
        "tab\tname.test.js",
        "type.txt",
        "ütf.test.js",
      ].sort(),
    );
    assert.equal(changes.length, byPath.size);
    assert.deepEqual(byPath.get("edit.txt"), { status: "M", from: "edit.txt", path: "edit.txt" });
    assert.deepEqual(byPath.get("new.txt"), { status: "A", from: "new.txt", path: "new.txt" });
    assert.deepEqual(byPath.get("gone.txt"), { status: "D", from: "gone.txt", path: "gone.txt" });
    assert.deepEqual(byPath.get("type.txt"), { status: "T", from: "type.txt", path: "type.txt" });
    assert.deepEqual(byPath.get("new-name.test.js"), {
      status: "R",
      from: "old-name.test.js",
      path: "new-name.test.js",
    });
    // Out of a skipped folder into the project: kept, since the new name is the project's.
    assert.deepEqual(byPath.get("lib/moved.js"), {
      status: "R",
      from: "node_modules/moved.js",
      path: "lib/moved.js",
    });
    // `.gantry/` is not compared, so its deleted file pairs with nothing: the new file is an addition.
    assert.deepEqual(byPath.get("from-gantry.json"), {
      status: "A",
      from: "from-gantry.json",
      path: "from-gantry.json",
    });
  });

  it("from the empty tree, everything under the root is added", async () => {
    const changes = await treeChanges(app, EMPTY_TREE, treeOf(root, base));
    assert.deepEqual(changes.map((change) => `${change.status} ${change.path}`).sort(), [
      "A edit.txt",
      "A gone.txt",
      "A keep.txt",
      "A old-name.test.js",
      "A type.txt",
    ]);
  });

  it("takes the judge's own diff as the answer when it deleted nothing, skipped folders left out", async () => {
    const known = [
      { status: "M" as const, path: "src/a.ts" },
      { status: "A" as const, path: "node_modules/x/index.js" },
      { status: "T" as const, path: "deep/dist/out.js" },
      { status: "A" as const, path: "distant/b.ts" },
    ];
    assert.deepEqual(await treeChanges(NO_REPO, base, tree, known), [
      { status: "M", from: "src/a.ts", path: "src/a.ts" },
      { status: "A", from: "distant/b.ts", path: "distant/b.ts" },
    ]);
  });

  it("asks git for renames when the judge's diff deleted something", async () => {
    const known = [
      { status: "M" as const, path: "edit.txt" },
      { status: "D" as const, path: "old-name.test.js" },
    ];
    await assert.rejects(treeChanges(NO_REPO, base, tree, known));
    const changes = await treeChanges(app, base, tree, known);
    assert.ok(changes.some((change) => change.status === "R" && change.from === "old-name.test.js"));
  });

  it("gives the added and removed lines of the chosen files, numbered in their own side", async () => {
    const lines = await changedLines(app, base, tree, ["edit.txt", "new.txt"]);
    assert.deepEqual([...lines.keys()].sort(), ["edit.txt", "new.txt"]);
    assert.deepEqual(lines.get("edit.txt"), {
      added: [{ line: 2, text: "line two" }],
      removed: [
        { line: 2, text: "line 2" },
        { line: 9, text: "line 9" },
      ],
    });
    assert.deepEqual(lines.get("new.txt"), { added: [{ line: 1, text: "added" }], removed: [] });
  });

  it("diffs a renamed file against its old name, with or without the changes given", async () => {
    const expected = { added: [{ line: 21, text: "it.skip('x')" }], removed: [] };
    const asked = await changedLines(app, base, tree, ["new-name.test.js"]);
    assert.deepEqual(asked.get("new-name.test.js"), expected);
    const given = await changedLines(
      app,
      base,
      tree,
      ["new-name.test.js"],
      await treeChanges(app, base, tree),
    );
    assert.deepEqual(given.get("new-name.test.js"), expected);
    assert.deepEqual([...given.keys()], ["new-name.test.js"]);
  });

  it("past the pathspec's limit reads the whole diff, renames paired, and keeps only the files asked for", async () => {
    const given = await treeChanges(app, base, tree);
    for (const changes of [given, undefined]) {
      const whole = await changedLines(app, base, tree, ["edit.txt", "new-name.test.js"], changes, 1);
      assert.deepEqual(
        [...whole.entries()].sort(),
        [
          ...(await changedLines(app, base, tree, ["edit.txt", "new-name.test.js"], changes)).entries(),
        ].sort(),
      );
      assert.deepEqual([...whole.keys()].sort(), ["edit.txt", "new-name.test.js"]);
    }
  });

  it("leaves out files not asked for and deleted files", async () => {
    const lines = await changedLines(app, base, tree, ["gone.txt", "keep.txt"]);
    assert.equal(lines.size, 0);
  });

  it("reads names git quotes (a tab) and names it leaves as they are (UTF-8)", async () => {
    const lines = await changedLines(app, base, tree, ["tab\tname.test.js", "ütf.test.js"]);
    assert.deepEqual(lines.get("tab\tname.test.js"), { added: [{ line: 1, text: "one" }], removed: [] });
    assert.deepEqual(lines.get("ütf.test.js"), { added: [{ line: 1, text: "eins" }], removed: [] });
  });

  it("asks git nothing for no files", async () => {
    assert.equal((await changedLines(NO_REPO, base, tree, [])).size, 0);
  });

  it("reads a file's text at a commit or tree relative to the root; undefined when it is not there", async () => {
    assert.equal(await readAt(app, base, "gone.txt"), "deleted by the story\n");
    assert.equal(await readAt(app, tree, "gone.txt"), undefined);
    assert.equal(await readAt(app, tree, "new.txt"), "added\n");
    assert.equal(await readAt(NO_REPO, tree, "new.txt"), undefined);
  });
});

/**
 * Content lines that look like the diff's own headers: an added `++ x` is printed `+++ x`, a removed
 * `-- x` is `--- x`. They are the file's lines, never a new file; else an agent could hide the lines
 * after them (a skip marker) from the checks that read them.
 */
describe("test-integrity: added lines that look like a diff header", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-tree-diff-spoof-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  git(root, "init", "-q", "-b", "main");
  write(root, "a.test.js", "-- counter;\nkeep();\n");
  write(root, "b.test.js", "one\n");
  const base = commit(root, "base");
  write(root, "a.test.js", "keep();\n++ b.test.js\nit.skip('hidden');\n@@ -1 +1 @@\nit.only('x');\n");
  write(root, "b.test.js", "one\ntwo\n");
  const tree = treeOf(root, commit(root, "story"));

  it("counts every line of the hunk as the file's, whatever it starts with", async () => {
    const lines = await changedLines(root, base, tree, ["a.test.js", "b.test.js"]);
    assert.deepEqual(lines.get("a.test.js"), {
      added: [
        { line: 2, text: "++ b.test.js" },
        { line: 3, text: "it.skip('hidden');" },
        { line: 4, text: "@@ -1 +1 @@" },
        { line: 5, text: "it.only('x');" },
      ],
      removed: [{ line: 1, text: "-- counter;" }],
    });
    assert.deepEqual(lines.get("b.test.js"), { added: [{ line: 2, text: "two" }], removed: [] });
  });
});
