import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { objectId } from "../../src/git/git-objects.js";
import { readIndexFile } from "../../src/git/index-file.js";
import { mergeUserIndex } from "../../src/git/index-merge.js";
import { type RawEntry, readPlainIndex } from "../../src/git/plain-index.js";
import { openRepo } from "../../src/git/repo.js";
import { resetUserIndex, stillClean } from "../../src/git/user-index.js";
import { git } from "../support/fixture-repo.js";
import { gantryProject, gitReadTreeOf, indexDebug, plainOf } from "../support/git-fixtures.js";

/** The index as `git ls-files -s` and HEAD as `git ls-tree -r`, in one form: mode, object, path. */
const staged = (top: string) => git(top, "ls-files", "-s").replace(/ 0\t/g, "\t");
const headTree = (top: string) => git(top, "ls-tree", "-r", "HEAD").replace(/ (blob|commit) /g, " ");

async function commitStory(top: string, subject: string): Promise<void> {
  const repo = await openRepo(top);
  writeFileSync(join(top, "src/y.ts"), `${subject}\n`);
  writeFileSync(join(top, ".gantry/features/f/prd.json"), `{"done":"${subject}"}\n`);
  await repo.commitJudged(await repo.judge(), `gantry(US-1): ${subject}`);
  repo.close();
}

describe("the user's index reset to gantry's commit in node", () => {
  it("holds the commit's entries, keeps the stat data of unchanged ones, and git reads it", async () => {
    const top = gantryProject("uindex", { "src/link": "" });
    await commitStory(top, "one");
    // Read before git's status, which refreshes the stat data and writes the index again.
    const index = readIndexFile(join(top, ".git/index"), 20, true);
    // git's read-tree would have written its cache tree (TREE); node writes no extension.
    assert.equal(readFileSync(join(top, ".git/index")).includes("TREE"), false, "written in node");
    assert.equal(staged(top), headTree(top));
    assert.equal(git(top, "status", "--porcelain"), "");
    const mtime = (path: string) => index?.entries.find((e) => e.path === path)?.stat?.mtimeSec;
    assert.ok((mtime("src/x.ts") ?? 0) > 0, "an unchanged entry keeps its stat data");
    assert.equal(mtime("src/y.ts"), 0, "a new entry has none until git looks at the file");
    assert.equal(mtime(".gantry/features/f/prd.json"), 0, "nor a changed one");
    // A second story on top: the index written in node is read again in node.
    await commitStory(top, "two");
    assert.equal(staged(top), headTree(top));
    assert.equal(git(top, "status", "--porcelain"), "");
  });

  it("is what git's read-tree -m -i writes, entry by entry with its stat data, at any size", async () => {
    const top = gantryProject("uindex", { "src/link": "" });
    for (let i = 0; i < 150; i++) {
      mkdirSync(join(top, `lib/d${i % 7}`), { recursive: true });
      writeFileSync(join(top, `lib/d${i % 7}/f${i}.ts`), `${i}\n`);
    }
    writeFileSync(join(top, "run.sh"), "#!/bin/sh\n", { mode: 0o755 });
    git(top, "add", "-A");
    git(top, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "more");
    // Every file a minute old, so no entry is racy for either writer; the index's stat data refreshed.
    const old = new Date(Date.now() - 60_000);
    for (const path of git(top, "ls-files").split("\n")) utimesSync(join(top, path), old, old);
    git(top, "update-index", "--refresh");
    writeFileSync(join(top, "lib/d1/f1.ts"), "changed\n");
    rmSync(join(top, "lib/d2/f2.ts"));
    const before = join(top, ".git/index-before");
    copyFileSync(join(top, ".git/index"), before);
    await commitStory(top, "one");
    assert.equal(readFileSync(join(top, ".git/index")).includes("TREE"), false, "written in node");
    assert.equal(indexDebug(top, join(top, ".git/index")), gitReadTreeOf(top, before));
    assert.match(indexDebug(top, before), /lib\/d0\/f0\.ts\n {2}ctime: [1-9]/, "stat data carried");
  });

  it("one run's commits in a row: the index it wrote last is taken as known only while it is that file", async () => {
    const top = gantryProject("uindex", { "src/link": "" });
    const repo = await openRepo(top);
    // Four commits: the third and fourth write into buffers the first and second lent (user-index-book.ts).
    for (const [i, byHand] of [
      [1, false],
      [2, true],
      [3, false],
      [4, false],
    ] as const) {
      writeFileSync(join(top, `src/n${i}.ts`), `${i}\n`);
      writeFileSync(join(top, ".gantry/features/f/prd.json"), `{"done":${i}}\n`);
      // git writes the index in between: the next commit reads it again (its stat data refreshed by git).
      if (byHand) git(top, "update-index", "-q", "--refresh");
      await repo.commitJudged(await repo.judge({ recheck: true }), `gantry(US-${i}): ${i}`);
      assert.equal(readFileSync(join(top, ".git/index")).includes("TREE"), false, "written in node");
      assert.equal(staged(top), headTree(top));
      assert.equal(git(top, "status", "--porcelain"), "");
    }
    repo.close();
  });

  it("an index with a skip-worktree entry is left to git, which keeps the flag", async () => {
    const top = gantryProject("uindex", { "src/link": "" });
    git(top, "update-index", "--skip-worktree", "src/x.ts");
    assert.equal(readPlainIndex(readFileSync(join(top, ".git/index"))), undefined);
    await commitStory(top, "one");
    assert.ok(readFileSync(join(top, ".git/index")).includes("TREE"), "written by git");
    assert.equal(staged(top), headTree(top));
    assert.match(git(top, "ls-files", "-v", "src/x.ts"), /^S /);
  });

  it("refuses versions and files it does not rewrite, and a held lock", () => {
    const top = gantryProject("uindex", { "src/link": "" });
    const path = join(top, ".git/index");
    const plain = readPlainIndex(readFileSync(path));
    assert.ok(plain && plain.entries.length === 4);
    const broken = Buffer.from(readFileSync(path));
    broken[20] = (broken[20] ?? 0) ^ 1;
    assert.equal(readPlainIndex(broken), undefined, "a checksum that does not match");
    git(top, "update-index", "--index-version", "4");
    assert.equal(readPlainIndex(readFileSync(path)), undefined, "version 4");
    const before = readFileSync(path);
    writeFileSync(`${path}.lock`, "");
    assert.throws(() => resetUserIndex(path, top, { judged: plainOf(plain.entries), gantry: [] }), /EEXIST/);
    assert.ok(existsSync(`${path}.lock`), "another's lock is left alone");
    assert.deepEqual(readFileSync(path), before);
  });

  it("carries stat data for the same path, mode and object; a racy entry only while its file still holds its blob", () => {
    const top = mkdtempSync(join(tmpdir(), "gantry-uindex-racy-"));
    const blobId = (text: string) => Buffer.from(objectId("blob", Buffer.from(text)), "hex");
    const entry = (path: string, text: string, onDisk = text): RawEntry => {
      writeFileSync(join(top, path), onDisk);
      const disk = statSync(join(top, path));
      const stat = Buffer.alloc(40);
      stat.writeUInt32BE(Math.floor(disk.mtimeMs / 1000), 8);
      stat.writeUInt32BE(disk.ino % 2 ** 32, 20);
      stat.writeUInt32BE(disk.size, 36);
      return { path: Buffer.from(path), mode: 0o100644, id: blobId(text), stat };
    };
    const fresh = (e: RawEntry): RawEntry => ({ ...e, stat: Buffer.alloc(40) });
    const [a, b, c] = [entry("a", "1\n"), entry("b", "2\n"), entry("c", "3\n")];
    const mtime = (e: RawEntry) => e.stat.readUInt32BE(8);
    // The old index written a second after the files: none racy; b's object changed.
    const carried = (commit: RawEntry[], old: RawEntry[], oldMtime: number, gantry: RawEntry[] = []) => {
      const merged = mergeUserIndex({ judged: plainOf(commit), gantry }, plainOf(old), oldMtime, (e) =>
        stillClean(top, e),
      );
      return merged && { ...merged, mtimes: readPlainIndex(merged.bytes)?.entries.map(mtime) };
    };
    // The old index written a second after the files: none racy; b's object changed.
    const later = mtime(a) + 1;
    const changedB = { ...fresh(b), id: blobId("other\n") };
    assert.deepEqual(carried([fresh(a), changedB, fresh(c)], [a, b, c], later)?.mtimes, [
      mtime(a),
      0,
      mtime(c),
    ]);
    // Written in the same second: racy, kept while each file still has its blob's bytes.
    assert.deepEqual(carried([fresh(a), fresh(c)], [a, c], mtime(a))?.mtimes, [mtime(a), mtime(c)]);
    // A racy entry whose file now holds other bytes of the same size: git writes that index.
    const d = entry("d", "4\n", "5\n");
    assert.equal(carried([fresh(a), fresh(d)], [a, d], mtime(d)), undefined);
    // .gantry/'s entries go in at their place; the paths added and removed are said.
    const g = { ...fresh(entry(".g", "6\n")), path: Buffer.from(".gantry/x") };
    const merged = carried([fresh(a), fresh(c)], [a, b], later, [g]);
    assert.deepEqual(
      readPlainIndex(merged?.bytes ?? Buffer.alloc(0))?.entries.map((e) => e.path.toString()),
      [".gantry/x", "a", "c"],
    );
    assert.deepEqual([merged?.added, merged?.removed], [[".gantry/x", "c"], ["b"]]);
    // A path in both lists, or the commit's entries out of order: git writes that index.
    assert.equal(carried([fresh(a)], [a], later, [fresh(a)]), undefined);
    assert.equal(carried([fresh(c), fresh(a)], [a], later), undefined);
  });
});
