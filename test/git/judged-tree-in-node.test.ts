import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { EMPTY_TREE } from "../../src/git/git-objects.js";
import { rawTreeDiff, writeTreeFromIndex } from "../../src/git/judged-tree-in-node.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

/**
 * The judge's tree and its diff against HEAD written and read in node on a small tree must be byte for byte
 * what `git write-tree` and `git diff-tree -r -z --no-renames` give from the same private index: checked
 * after each kind of change, git's own output being the expectation.
 */
describe("the judged tree and its diff in node", () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  function fixture() {
    const root = mkdtempSync(join(tmpdir(), "gantry-tree-in-node-"));
    roots.push(root);
    for (const path of [
      "src/a.js",
      "src/deep/b.js",
      "a-b.txt",
      "a.txt",
      "a/x.txt",
      "a0",
      "pkg/.gantry/p.json",
    ])
      write(root, path, `${path}\n`);
    write(root, ".gantry/config.json", "{}\n");
    commitAll(root);
    const index = join(root, ".git", "private-index");
    const objects = join(root, ".git", "objects");
    // Isolated from whatever repository the tests run under, as fixture-repo's git is; the private index.
    const outer = Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_"));
    const env = { ...Object.fromEntries(outer), GIT_INDEX_FILE: index, GIT_CONFIG_NOSYSTEM: "1" };
    const priv = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8" });
    priv("read-tree", "HEAD");
    priv("rm", "-r", "-q", "--cached", ".gantry");
    const head = git(root, "rev-parse", "HEAD");
    /** The private index after `add -A`, node's tree and diff against git's. */
    const same = (what: string, excluded = ".gantry", against = head) => {
      priv("add", "-A", "--", ":(top)", ":(exclude,top).gantry");
      const tree = writeTreeFromIndex(index, objects);
      assert.equal(tree, priv("write-tree").trim(), `${what}: the tree`);
      const diff = rawTreeDiff(objects, against, tree as string, excluded);
      const gits = priv(
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        against,
        tree as string,
        "--",
        ":(top)",
        `:(exclude,top)${excluded}`,
      );
      assert.equal(diff, gits, `${what}: the diff`);
      return { tree: tree as string, diff: diff as string };
    };
    return { root, index, objects, priv, head, same };
  }

  it("edits, new folders, removals, a file become a folder and back, a symlink, a mode change, names in git's order", () => {
    const { root, same, priv, objects } = fixture();
    assert.equal(same("nothing changed").diff, "");
    write(root, "src/a.js", "edited\n");
    write(root, "src/new/deeper/c.js", "c\n");
    write(root, "a.b", "between a-b.txt and a.txt\n");
    write(root, "ü name.txt", "unicode and a space\n");
    rmSync(join(root, "src/deep/b.js"));
    const first = same("edits, additions, a folder emptied");
    assert.match(first.diff, /D\0src\/deep\/b\.js\0/);
    rmSync(join(root, "a.txt"));
    write(root, "a.txt/inside.txt", "a file become a folder\n");
    rmSync(join(root, "a"), { recursive: true });
    write(root, "a", "a folder become a file\n");
    same("file to folder, folder to file");
    symlinkSync("src/a.js", join(root, "link"));
    chmodSync(join(root, "a0"), 0o755);
    renameSync(join(root, "a-b.txt"), join(root, "b-a.txt"));
    same("a symlink, a mode change, a rename (no detection)");
    rmSync(join(root, "src/a.js"));
    symlinkSync("new/deeper/c.js", join(root, "src/a.js"));
    const typeChange = same("a file of HEAD become a symlink");
    assert.match(typeChange.diff, / T\0src\/a\.js\0/);
    execFileSync("git", ["-c", "init.defaultBranch=main", "init", "-q", join(root, "nested")]);
    write(root, "nested/n.txt", "n\n");
    git(join(root, "nested"), "add", "-A");
    git(
      join(root, "nested"),
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@example.com",
      "commit",
      "-q",
      "-m",
      "n",
    );
    same("a nested repository (a gitlink)");
    rmSync(join(root, "pkg/.gantry/p.json"));
    same("a file under a folder excluded from the diff", "pkg/.gantry");
    same("against the empty tree (an unborn HEAD)", ".gantry", EMPTY_TREE);
    execFileSync("git", ["fsck", "--strict", "--no-dangling"], { cwd: root, stdio: "pipe" });
    priv("add", "-N", "--", "b-a.txt");
    write(root, "intent.txt", "x\n");
    priv("add", "-N", "--", "intent.txt");
    assert.equal(
      writeTreeFromIndex(join(root, ".git", "private-index"), objects),
      undefined,
      "an intent-to-add entry: git's to write",
    );
  });
});

describe("the judged tree in node from the index's cache-tree", () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  it("takes the folders no change reached from it, and builds a folder whose cached count does not fit its entries", () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-cache-tree-"));
    roots.push(root);
    const paths = Array.from({ length: 12 }, (_, i) => `vendor/d${i % 3}/e${i % 2}/f${i}.txt`);
    for (const [i, path] of paths.entries()) write(root, path, `${i}\n`);
    write(root, "src/a.js", "a\n");
    commitAll(root);
    // Files as old as a minute: written in the second the index is, they would be racily clean, and git
    // smudges such entries when it writes the index, so `add` would re-add them and invalidate their folders.
    const old = new Date(Date.now() - 60_000);
    for (const path of [...paths, "src/a.js"]) utimesSync(join(root, path), old, old);
    const index = join(root, ".git", "private-index");
    const objects = join(root, ".git", "objects");
    const outer = Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_"));
    const env = { ...Object.fromEntries(outer), GIT_INDEX_FILE: index, GIT_CONFIG_NOSYSTEM: "1" };
    const priv = (...args: string[]) => execFileSync("git", args, { cwd: root, env, encoding: "utf8" });
    // HEAD's entries with a primed cache-tree; the root valid: its id is HEAD's tree.
    priv("read-tree", "HEAD");
    assert.equal(writeTreeFromIndex(index, objects), git(root, "rev-parse", "HEAD^{tree}"));
    // Stat data from the disk (as the judge's index has it), so that `add` invalidates only what changed.
    priv("update-index", "-q", "--refresh");
    write(root, "src/b.js", "b\n");
    write(root, "vendor/d1/e0/new.txt", "n\n");
    priv("add", "-A");
    const cacheTree = readFileSync(index);
    // git's write-tree on a copy, so that the index node reads keeps its invalidated folders.
    writeFileSync(`${index}.copy`, cacheTree);
    const gits = execFileSync("git", ["write-tree"], {
      cwd: root,
      env: { ...env, GIT_INDEX_FILE: `${index}.copy` },
      encoding: "utf8",
    }).trim();
    assert.equal(
      writeTreeFromIndex(index, objects),
      gits,
      "only src/, vendor/d1/e0/ and their parents built",
    );
    // A cache-tree whose count for vendor/d0/ is one short: not taken, the folder built from the entries.
    const bytes = Buffer.from(cacheTree);
    const at = bytes.indexOf(Buffer.from("d0\u00004 "));
    assert.ok(at > 0, "vendor/d0/ is cached with 4 entries");
    bytes.write("3", at + 3, "latin1");
    createHash("sha1")
      .update(bytes.subarray(0, bytes.length - 20))
      .digest()
      .copy(bytes, bytes.length - 20);
    writeFileSync(index, bytes);
    assert.equal(
      writeTreeFromIndex(index, objects),
      gits,
      "the same tree from a cache-tree that does not fit",
    );
    // A cached id is reused as git reuses it (vendor/d2/ named as vendor/d0/'s tree: both give that tree), and
    // not when its object is missing (both build the folder again).
    const gitWith = (forged: Buffer) => {
      writeFileSync(`${index}.copy`, forged);
      writeFileSync(index, forged);
      return execFileSync("git", ["write-tree"], {
        cwd: root,
        env: { ...env, GIT_INDEX_FILE: `${index}.copy` },
        encoding: "utf8",
      }).trim();
    };
    const idOf = (name: string, bytes: Buffer) =>
      bytes.indexOf(Buffer.from(`${name}\u0000`)) + name.length + 5;
    for (const [what, id] of [
      ["another folder's tree", cacheTree.subarray(idOf("d0", cacheTree), idOf("d0", cacheTree) + 20)],
      ["a missing object", Buffer.alloc(20, 0xab)],
    ] as const) {
      const forged = Buffer.from(cacheTree);
      id.copy(forged, idOf("d2", forged));
      createHash("sha1")
        .update(forged.subarray(0, forged.length - 20))
        .digest()
        .copy(forged, forged.length - 20);
      const expected = gitWith(forged);
      assert.equal(writeTreeFromIndex(index, objects), expected, what);
      if (what === "a missing object") assert.equal(expected, gits, "git built vendor/d2/ again");
      else assert.notEqual(expected, gits, "git took the cached id");
    }
    execFileSync("git", ["fsck", "--strict", "--no-dangling"], { cwd: root, stdio: "pipe" });
  });
});
