import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";

/**
 * The kinds of repository where size matters, at about 30,000 files: a sparse checkout (whose files outside
 * the cone a commit must never delete) and a project in a subfolder of a large repository, each committed
 * by gantry and by git on a copy, compared.
 */
const FILES = 30_000;
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", maxBuffer: 1 << 28 }).trim();

function large(name: string): string {
  const top = mkdtempSync(join(tmpdir(), `gantry-fidelity-large-${name}-`));
  temps.push(top);
  for (let i = 0; i < FILES; i++) {
    const dir = join(top, `area${i % 30}`, `d${i % 100}`);
    if (i < 3000) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.txt`), `${i}\n`);
  }
  mkdirSync(join(top, "app"), { recursive: true });
  writeFileSync(join(top, "app", "a.js"), "export const a = 1;\n");
  git(top, "init", "-q", "-b", "main");
  // No auto gc detached in the background while the copy is made (30,000 loose objects would start one).
  git(top, "config", "gc.auto", "0");
  git(top, "add", "-A");
  git(top, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
  return top;
}

async function compare(top: string, root: string, scope: string): Promise<void> {
  writeFileSync(join(root, "a.js"), "export const a = 2;\n");
  writeFileSync(join(root, "b.js"), "export const b = 1;\n");
  const reference = `${top}-git`;
  temps.push(reference);
  cpSync(top, reference, { recursive: true });
  git(reference, "add", "-A", "--", scope);
  git(
    reference,
    "-c",
    "user.name=t",
    "-c",
    "user.email=t@example.com",
    "commit",
    "-q",
    "-m",
    "s",
    "--",
    scope,
  );
  const repo = await openRepo(root);
  try {
    await repo.commitJudged(await repo.judge({ recheck: true }), "s");
  } finally {
    repo.close();
  }
  assert.equal(git(top, "rev-parse", "HEAD^{tree}"), git(reference, "rev-parse", "HEAD^{tree}"));
  assert.equal(git(top, "status", "--porcelain"), git(reference, "status", "--porcelain"));
  assert.equal(git(top, "ls-tree", "-r", "HEAD", "--name-only").split("\n").length, FILES + 2);
  git(top, "diff", "--cached", "--quiet", "HEAD", "--", scope);
  git(top, "fsck", "--strict", "--no-progress");
}

describe(`gantry's commit on ${FILES.toLocaleString("en")} files`, () => {
  it("a sparse checkout: nothing outside the cone is deleted", async () => {
    const top = large("sparse");
    git(top, "sparse-checkout", "set", "app");
    assert.equal(existsSync(join(top, "area1")), false);
    process.env.GIT_AUTHOR_NAME = "t";
    process.env.GIT_AUTHOR_EMAIL = "t@example.com";
    process.env.GIT_COMMITTER_NAME = "t";
    process.env.GIT_COMMITTER_EMAIL = "t@example.com";
    await compare(top, join(top, "app"), ".");
  });

  it("a project in a subfolder with the user's work elsewhere", async () => {
    const top = large("monorepo");
    writeFileSync(join(top, "area3", "d3", "f3.txt"), "the user's own work\n");
    await compare(top, join(top, "app"), "app");
    assert.equal(git(top, "show", "HEAD:area3/d3/f3.txt"), "3");
  });
});
