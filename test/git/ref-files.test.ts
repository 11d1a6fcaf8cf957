import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { refFromFiles, refsFromFiles } from "../../src/git/ref-files.js";
import { refTip } from "../../src/git/worktree.js";
import { git, write } from "../support/fixture-repo.js";

describe("refFromFiles", () => {
  const root = mkdtempSync(join(tmpdir(), "gantry-ref-files-"));
  after(() => rmSync(root, { recursive: true, force: true }));
  git(root, "init", "-q", "-b", "main");
  write(root, "a.txt", "a\n");
  git(root, "add", "-A");
  git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  const head = git(root, "rev-parse", "HEAD");
  const common = join(root, ".git");

  it("reads a loose ref, a packed one, and says null for none, as git does", async () => {
    git(root, "update-ref", "refs/heads/loose", head);
    git(root, "update-ref", "refs/gantry/failed/X", head);
    git(root, "pack-refs", "--all");
    git(root, "update-ref", "refs/heads/after-pack", head);
    for (const ref of ["refs/heads/loose", "refs/gantry/failed/X", "refs/heads/after-pack"]) {
      assert.equal(refFromFiles(common, ref), head, ref);
      assert.equal(await refTip(root, ref, common), head);
    }
    assert.equal(refFromFiles(common, "refs/heads/none"), null);
    assert.equal(await refTip(root, "refs/heads/none", common), undefined);
    git(root, "update-ref", "-d", "refs/heads/loose");
    assert.equal(refFromFiles(common, "refs/heads/loose"), null, "deleted from packed-refs too");
  });

  it("cannot tell a symbolic ref, a name outside refs/ or with dot parts: git is asked", async () => {
    writeFileSync(join(common, "refs", "heads", "sym"), "ref: refs/heads/main\n");
    assert.equal(refFromFiles(common, "refs/heads/sym"), undefined);
    assert.equal(await refTip(root, "refs/heads/sym", common), head, "git follows it");
    assert.equal(refFromFiles(common, "HEAD"), undefined);
    assert.equal(refFromFiles(common, "refs/heads/../heads/main"), undefined);
  });

  it("lists refs as git does: a ref update in flight (its .lock file) is no ref", async () => {
    writeFileSync(join(common, "refs", "heads", "in-flight.lock"), `${head}\n`);
    const listed = refsFromFiles(common);
    assert.ok(listed);
    assert.equal(listed.has("refs/heads/in-flight.lock"), false);
    assert.equal(listed.get("refs/heads/main"), head);
    const fromGit = git(root, "for-each-ref", "--format=%(refname)").split("\n");
    assert.deepEqual(
      [...listed.keys()].filter((ref) => ref !== "refs/heads/sym").sort(),
      fromGit.filter((ref) => ref !== "refs/heads/sym").sort(),
    );
  });
});
