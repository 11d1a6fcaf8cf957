import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { indexFlagsOf, parseIndex, readIndexFile, readIndexFlags } from "../../src/git/index-file.js";
import { parseIndexFlags } from "../../src/git/index-flags.js";
import { fileKey } from "../../src/git/tamper-snapshot.js";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

/** A repository with files in folders whose names share prefixes (what version 4 compresses), a long path, a non-ASCII one. */
function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-index-"));
  temps.push(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  const names = ["a.js", "src/app.ts", "src/app.test.ts", "src/lib/deep/x.ts", "src/lib/y.ts", "ü-file.md"];
  names.push(`${`${"n".repeat(120)}/`.repeat(8)}long.txt`);
  for (const name of names) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), `${name}\n`);
  }
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return root;
}

/** What `git ls-files -v -z` says, read the way the tamper snapshot reads it. */
const gitFlags = (root: string) => [...parseIndexFlags(git(root, "ls-files", "-v", "-z"))].sort();
const nodeFlags = (root: string) => {
  const read = readIndexFile(join(root, ".git", "index"));
  assert.ok(read, "the index file was read");
  const flags = [...indexFlagsOf(read.entries)].sort();
  // The flags-only reader (no entry made, a path decoded only when flagged) says the same, for the same file version.
  const flagsOnly = readIndexFlags(join(root, ".git", "index"));
  assert.ok(flagsOnly, "the index file's flags were read");
  assert.deepEqual([...flagsOnly.indexFlags].sort(), flags);
  assert.equal(flagsOnly.key, read.key);
  return flags;
};
const gitPaths = (root: string) => git(root, "ls-files", "-z", "--stage").split("\0").filter(Boolean);

describe("readIndexFile", () => {
  for (const version of ["2", "3", "4"]) {
    it(`reads every entry and flag of a version ${version} index as git ls-files does`, () => {
      const root = repo();
      git(root, "update-index", "--index-version", version);
      git(root, "update-index", "--assume-unchanged", "src/app.ts");
      if (version !== "2") git(root, "update-index", "--skip-worktree", "src/lib/deep/x.ts", "ü-file.md");
      git(root, "update-index", "--assume-unchanged", "ü-file.md");
      const read = readIndexFile(join(root, ".git", "index"));
      assert.ok(read);
      assert.equal(read.key, fileKey(join(root, ".git", "index")));
      // Paths and stages as git lists them (ls-files --stage: "mode sha stage\tpath").
      assert.deepEqual(
        read.entries.map((e) => `${e.stage}\t${e.path}`),
        gitPaths(root).map((line) => `${line.split(" ")[2]}`),
      );
      const expected = version === "2" ? 2 : 4;
      assert.equal(gitFlags(root).length, expected);
      assert.deepEqual(nodeFlags(root), gitFlags(root));
    });
  }

  it("reads an unmerged entry's sides, tagged as ls-files -v tags them", () => {
    const root = repo();
    git(root, "checkout", "-q", "-b", "other");
    writeFileSync(join(root, "a.js"), "other\n");
    git(root, "commit", "-qam", "other");
    git(root, "checkout", "-q", "main");
    writeFileSync(join(root, "a.js"), "main\n");
    git(root, "commit", "-qam", "main");
    assert.throws(() => git(root, "merge", "-q", "other"));
    const read = readIndexFile(join(root, ".git", "index"));
    assert.ok(read);
    assert.deepEqual(
      read.entries.filter((e) => e.path === "a.js").map((e) => e.stage),
      [1, 2, 3],
    );
    assert.deepEqual(nodeFlags(root), gitFlags(root));
  });

  it("gives up on a split index and a sparse index (their entries are not all in the file)", () => {
    const split = repo();
    git(split, "update-index", "--split-index");
    assert.equal(readIndexFile(join(split, ".git", "index")), undefined);
    assert.equal(readIndexFlags(join(split, ".git", "index")), undefined);
    const sparse = repo();
    git(sparse, "sparse-checkout", "set", "--cone", "--sparse-index", "src/lib");
    assert.equal(readIndexFile(join(sparse, ".git", "index")), undefined);
  });

  it("gives up on bytes that are not a whole index", () => {
    const root = repo();
    const bytes = readFileSync(join(root, ".git", "index"));
    assert.ok(parseIndex(bytes));
    assert.equal(parseIndex(bytes.subarray(0, bytes.length - 30)), undefined);
    assert.equal(parseIndex(Buffer.from("not an index at all, really")), undefined);
    const future = Buffer.from(bytes);
    future.writeUInt32BE(5, 4);
    assert.equal(parseIndex(future), undefined);
    assert.equal(readIndexFile(join(root, "missing")), undefined);
  });
});
