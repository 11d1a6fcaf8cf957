import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { openRepo } from "../../src/git/repo.js";

function git(root: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd: root, encoding: "utf8" });
}

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-repo-"));
  mkdirSync(join(root, ".gantry/features/f"), { recursive: true });
  writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"status":"pending"}\n');
  writeFileSync(join(root, "a.js"), "export const a = 1;\n");
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "baseline");
  return root;
}

describe("git repo wrapper", () => {
  it("judges and commits after a crash left prd.json staged, then rewritten by resume", async () => {
    // A run killed between `git add -A` and `git commit`: prd.json is staged as passed; resume then puts
    // the story back to pending, so the index holds a third version, unlike both HEAD and the file.
    const root = repo();
    writeFileSync(join(root, "b.js"), "export const b = 2;\n");
    writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"status":"passed"}\n');
    git(root, "add", "-A");
    writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"status":"pending"}\n{"edited":true}\n');
    const git_ = await openRepo(root);
    const judged = await git_.judge();
    const withoutGantry = git(root, "ls-tree", "--name-only", judged.tree).trim().split("\n");
    assert.deepEqual(withoutGantry, ["a.js", "b.js"]);
    await git_.commitJudged(judged, "gantry(US-1): after the crash");
    assert.equal(git(root, "status", "--porcelain"), "");
    assert.match(git(root, "show", "HEAD:.gantry/features/f/prd.json"), /"edited":true/);
  });

  it("the commit moves the branch only once `ready` has settled (prd.json's folder synced meanwhile)", async () => {
    const root = repo();
    writeFileSync(join(root, "b.js"), "export const b = 2;\n");
    const git_ = await openRepo(root);
    const judged = await git_.judge();
    let settle: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const committing = git_.commitJudged(judged, "gantry(US-1): b", { ready });
    // Long enough for the commit's own work in node: only the branch's move waits.
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(git(root, "rev-parse", "HEAD").trim(), judged.sha, "the branch has not moved yet");
    settle();
    const commit = await committing;
    assert.equal(git(root, "rev-parse", "HEAD").trim(), commit);
    assert.equal(git(root, "log", "-1", "--format=%s").trim(), "gantry(US-1): b");
    git_.close();
  });

  it("outside a repository, openRepo says so in one line as bad input (exit 2), not as an internal error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-norepo-"));
    await assert.rejects(
      () => openRepo(dir),
      (error: unknown) =>
        error instanceof InputError &&
        /^.+: git cannot work here: not a git repository/.test(error.message) &&
        !error.message.includes("\n"),
    );
  });

  it("tracked files and HEAD's tree as git gives them, from a subfolder, before and after gantry's commit", async () => {
    const root = repo();
    mkdirSync(join(root, "pkg/src"), { recursive: true });
    writeFileSync(join(root, "pkg/src/x.ts"), "1\n");
    writeFileSync(join(root, "pkg/y.ts"), "2\n");
    mkdirSync(join(root, "pkg/.gantry/features/f"), { recursive: true });
    writeFileSync(join(root, "pkg/.gantry/features/f/prd.json"), "{}\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "pkg");
    const sub = join(root, "pkg");
    const repo_ = await openRepo(sub);
    const lsFiles = () => new Set(git(sub, "ls-files", "-z").split("\0").filter(Boolean));
    const revParse = () => {
      const [sha, tree] = git(sub, "rev-parse", "HEAD", "HEAD^{tree}").trim().split("\n");
      return { sha, tree };
    };
    assert.deepEqual(await repo_.trackedFiles(), lsFiles());
    assert.deepEqual(await repo_.headAndTree(), revParse());
    writeFileSync(join(sub, "z.ts"), "3\n");
    const judged = await repo_.judge();
    await repo_.commitJudged(judged, "gantry(US-1): z");
    assert.deepEqual([...(await repo_.trackedFiles())].sort(), [
      ".gantry/features/f/prd.json",
      "src/x.ts",
      "y.ts",
      "z.ts",
    ]);
    assert.deepEqual(await repo_.headAndTree(), revParse());
    // HEAD moved by someone else: asked of git, not taken from gantry's last commit.
    git(root, "commit", "-q", "--allow-empty", "-m", "by hand");
    assert.deepEqual(await repo_.headAndTree(), revParse());
    repo_.close();
  });

  it("the branch HEAD names, as git says it: a nested name, a linked worktree's own, none when detached", async () => {
    const root = repo();
    const main = await openRepo(root);
    assert.equal(await main.branch(), "main");
    git(root, "checkout", "-q", "-b", "feature/x");
    assert.equal(await main.branch(), "feature/x");
    const linked = join(root, ".git", "wt");
    git(root, "worktree", "add", "-q", "-b", "gantry/f/story-A", linked);
    const inLinked = await openRepo(linked);
    assert.equal(await inLinked.branch(), "gantry/f/story-A");
    assert.equal(await main.branch(), "feature/x", "each worktree its own HEAD");
    git(root, "checkout", "-q", "--detach");
    assert.equal(await main.branch(), undefined);
    main.close();
    inLinked.close();
  });

  it("a first snapshot's index flags, read from the index file, are git's own", async () => {
    const root = repo();
    writeFileSync(join(root, "b.js"), "export const b = 1;\n");
    git(root, "add", "b.js");
    git(root, "commit", "-q", "-m", "b");
    git(root, "update-index", "--skip-worktree", "a.js");
    git(root, "update-index", "--assume-unchanged", "b.js");
    const repo_ = await openRepo(root);
    const snapshot = await repo_.snapshot();
    const fromGit = git(root, "ls-files", "-v")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("H "));
    assert.deepEqual([...snapshot.indexFlags].sort(), fromGit.sort());
    assert.equal(snapshot.indexFlags.size, 2);
    repo_.close();
  });

  it("HEAD's tree for a commit gantry made, asked from another worktree of the repository: git's own", async () => {
    const root = repo();
    const first = await openRepo(root);
    writeFileSync(join(root, "c.js"), "export const c = 1;\n");
    const commit = await first.commitJudged(await first.judge(), "gantry(US-1): c");
    first.close();
    const linked = join(mkdtempSync(join(tmpdir(), "gantry-repo-linked-")), "wt");
    git(root, "worktree", "add", "-q", "--detach", linked, commit);
    const other = await openRepo(linked);
    const [sha, tree] = git(linked, "rev-parse", "HEAD", "HEAD^{tree}").trim().split("\n");
    assert.equal(sha, commit);
    assert.deepEqual(await other.headAndTree(), { sha, tree });
    other.close();
  });
});
