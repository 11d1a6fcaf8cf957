import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { changedFiles } from "../../src/git/changed-files.js";

/** git for the fixture, isolated from whatever repository or hook the tests run under. */
function git(cwd: string, ...args: string[]): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  return execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    env: { ...env, GIT_CONFIG_NOSYSTEM: "1", HOME: cwd },
    encoding: "utf8",
  }).trim();
}

function write(root: string, path: string, text = `${path}\n`): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe("changedFiles", () => {
  const work = mkdtempSync(join(tmpdir(), "gantry-changed-"));
  const repo = join(work, "repo");
  const app = join(repo, "packages", "app");
  let base = "";

  before(() => {
    mkdirSync(repo);
    git(repo, "init", "-q", "-b", "main");
    for (const path of [
      "README.md",
      "packages/other/src/x.ts",
      "packages/app/src/edited.ts",
      "packages/app/src/staged.ts",
      "packages/app/src/deleted.ts",
      "packages/app/src/renamed-from.ts",
      "packages/app/src/committed-later.ts",
      "packages/app/src/untouched.ts",
    ]) {
      write(repo, path);
    }
    write(repo, "packages/app/.gitignore", "build/\n");
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", "base");
    base = git(repo, "rev-parse", "HEAD");

    write(repo, "packages/app/src/committed-later.ts", "changed and committed\n");
    git(repo, "commit", "-q", "-am", "later");
    write(repo, "packages/app/src/edited.ts", "edited, not staged\n");
    write(repo, "packages/app/src/staged.ts", "staged\n");
    git(repo, "add", "packages/app/src/staged.ts");
    unlinkSync(join(repo, "packages/app/src/deleted.ts"));
    git(repo, "mv", "packages/app/src/renamed-from.ts", "packages/app/src/renamed-to.ts");
    write(repo, "packages/app/src/new file 'quoted' é.ts");
    write(repo, "packages/app/test/new.test.ts");
    write(repo, "packages/app/build/out.js");
    write(repo, "packages/other/src/x.ts", "outside the project\n");
    write(repo, "packages/other/src/untracked.ts");
    write(repo, "README.md", "outside the project\n");
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test("a project in a subdirectory sees its own changes, relative to itself, and nothing outside", async () => {
    assert.deepEqual(await changedFiles(app, base), [
      "src/committed-later.ts",
      "src/deleted.ts",
      "src/edited.ts",
      "src/new file 'quoted' é.ts",
      "src/renamed-from.ts",
      "src/renamed-to.ts",
      "src/staged.ts",
      "test/new.test.ts",
    ]);
  });

  test("at the repository root every change counts, relative to the root", async () => {
    const files = await changedFiles(repo, base);
    assert.ok(files.includes("README.md"));
    assert.ok(files.includes("packages/other/src/x.ts"));
    assert.ok(files.includes("packages/other/src/untracked.ts"));
    assert.ok(files.includes("packages/app/src/edited.ts"));
    assert.equal(files.includes("packages/app/build/out.js"), false, "ignored files are not changes");
    assert.equal(files.includes("packages/app/src/untouched.ts"), false);
  });

  test("against HEAD, only the uncommitted work", async () => {
    const files = await changedFiles(app, "HEAD");
    assert.equal(files.includes("src/committed-later.ts"), false);
    assert.ok(files.includes("src/edited.ts"));
    assert.ok(files.includes("test/new.test.ts"));
  });

  test("a GIT_DIR inherited from a parent git (a hook) does not redirect the question", async () => {
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(work, "not-a-repository");
    try {
      assert.ok((await changedFiles(app, base)).includes("src/edited.ts"));
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
    }
  });

  test("a base that is not a commit is an error naming git's complaint", async () => {
    await assert.rejects(changedFiles(app, "0123456789abcdef0123456789abcdef01234567"), /git diff failed/);
    await assert.rejects(changedFiles(app, "--output=/tmp/x"), /expected a commit/);
  });
});
