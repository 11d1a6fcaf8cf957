import assert from "node:assert/strict";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { plainIndex, statCacheDirectory } from "../../src/git/stat-cache.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

/**
 * The private index kept between runs (stat-cache.ts): only its stat data is used, only from gantry's state
 * directory, only when it is a plain index; a file edited between runs is hashed again whatever its mtime says.
 */
describe("stat cache", () => {
  const roots: string[] = [];
  const state = mkdtempSync(join(tmpdir(), "gantry-stat-cache-state-"));
  const savedState = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = state;
  after(() => {
    if (savedState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = savedState;
    for (const root of [...roots, state]) rmSync(root, { recursive: true, force: true });
  });

  function fixture(): string {
    const root = mkdtempSync(join(tmpdir(), "gantry-stat-cache-"));
    roots.push(root);
    write(root, "src/a.js", "export const a = 1;\n");
    write(root, "src/b.js", "export const b = 1;\n");
    write(root, ".gantry/config.json", "{}\n");
    commitAll(root);
    return root;
  }

  it("takes a plain index git wrote, and no index with flags, another version or a wrong checksum", () => {
    const root = fixture();
    const index = () => readFileSync(join(root, ".git", "index"));
    assert.equal(plainIndex(index()), true);
    git(root, "update-index", "--assume-unchanged", "src/a.js");
    assert.equal(plainIndex(index()), false, "assume-unchanged");
    git(root, "update-index", "--no-assume-unchanged", "src/a.js");
    assert.equal(plainIndex(index()), true);
    git(root, "update-index", "--skip-worktree", "src/b.js");
    assert.equal(plainIndex(index()), false, "skip-worktree (version 3)");
    git(root, "update-index", "--no-skip-worktree", "src/b.js");
    const bytes = index();
    bytes[bytes.length - 30] = (bytes[bytes.length - 30] ?? 0) ^ 1;
    assert.equal(plainIndex(bytes), false, "checksum");
  });

  it("keeps the index of a run for the next, and that run still hashes a file edited in between with its mtime put back", async () => {
    const root = fixture();
    const first = await openRepo(root);
    const judged = await first.judge();
    first.close();
    const [kept] = readdirSync(statCacheDirectory());
    assert.ok(kept, "a cache was written");
    const file = join(statCacheDirectory(), kept);
    assert.equal(statSync(file).mode & 0o777, 0o600);

    // Same size, same mtime: only ctime (which cannot be set back) tells the edit.
    const a = join(root, "src/a.js");
    const before = statSync(a);
    writeFileSync(a, "export const a = 2;\n");
    utimesSync(a, before.atime, before.mtime);
    const second = await openRepo(root);
    const again = await second.judge();
    second.close();
    assert.notEqual(again.tree, judged.tree, "the edit is in the judged tree");
    assert.equal(git(root, "cat-file", "-p", `${again.tree}:src/a.js`), "export const a = 2;");

    // A cache others can read or write is not used (and a run without it judges the same tree).
    chmodSync(file, 0o644);
    const third = await openRepo(root);
    assert.equal((await third.judge()).tree, again.tree);
    third.close();
  });
});
