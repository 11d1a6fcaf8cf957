import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import type { GitRepo } from "../../src/git/git-repo.js";
import { JudgeRefusal } from "../../src/git/judge.js";
import { openRepo } from "../../src/git/repo.js";
import { leavesRepository } from "../../src/git/tree-escapes.js";

describe("leavesRepository", () => {
  it("an absolute target, or a relative one that climbs above the top, leaves the repository", () => {
    assert.equal(leavesRepository("src/a.js", "/tmp/a.js"), true);
    assert.equal(leavesRepository("src/a.js", "../../a.js"), true);
    assert.equal(leavesRepository("a.js", ".."), true);
    assert.equal(leavesRepository("src/deep/a.js", "../../../x"), true);
  });
  it("a target inside the repository does not", () => {
    assert.equal(leavesRepository("src/a.js", "../lib/a.js"), false);
    assert.equal(leavesRepository("src/a.js", "b.js"), false);
    assert.equal(leavesRepository("src/deep/a.js", "../../x"), false);
    assert.equal(leavesRepository("a.js", "./b/../c"), false);
    assert.equal(leavesRepository("a.js", "..foo/x"), false, "a name starting with two dots stays inside");
  });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "protocol.file.allow=always", ...args], { cwd, encoding: "utf8" }).trim();
const write = (root: string, path: string, text: string) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
const opened: GitRepo[] = [];
after(() => {
  for (const repo of opened) repo.close();
});

function init(root: string, commit = true): string {
  mkdirSync(root, { recursive: true });
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "t@example.com");
  git(root, "config", "user.name", "t");
  if (commit) {
    write(root, "src/a.js", "export const a = 1;\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "base");
  }
  return root;
}

async function judgeOf(root: string) {
  const repo = await openRepo(root);
  opened.push(repo);
  return repo.judge();
}

const refusal = async (root: string): Promise<string> => {
  try {
    await judgeOf(root);
  } catch (error) {
    assert.ok(error instanceof JudgeRefusal, String(error));
    assert.equal(error.name, "JudgeRefusal");
    return error.message;
  }
  assert.fail("the judge judged a tree whose content a commit would not carry");
};

describe("the judge refuses a tree a commit would not carry (real repositories)", {
  concurrency: true,
}, () => {
  it("a new symlink out of the repository, absolute or climbing, is refused by name and target", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    symlinkSync("/etc/hostname", join(root, "src/abs.js"));
    symlinkSync("../../outside.js", join(root, "src/up.js"));
    assert.equal(
      await refusal(root),
      'the working tree cannot be judged: src/abs.js is a symlink to "/etc/hostname", outside the repository; ' +
        'src/up.js is a symlink to "../../outside.js", outside the repository',
    );
  });

  it("a symlink inside the repository, or one removed by the change, is judged", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    symlinkSync("/etc/hostname", join(root, "old-link"));
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "an old link the user made");
    rmSync(join(root, "old-link"));
    symlinkSync("../src/a.js", join(root, "src/b.js"));
    const judged = await judgeOf(root);
    assert.deepEqual(git(root, "ls-tree", "-r", "--name-only", judged.tree).split("\n"), [
      "src/a.js",
      "src/b.js",
    ]);
    assert.equal(git(root, "cat-file", "blob", `${judged.tree}:src/b.js`), "../src/a.js");
  });

  it("a symlink already in HEAD is not the change's doing and is judged", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    symlinkSync("/etc/hostname", join(root, "old-link"));
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "an old link the user made");
    write(root, "src/a.js", "export const a = 2;\n");
    const judged = await judgeOf(root);
    assert.equal(git(root, "cat-file", "blob", `${judged.tree}:src/a.js`), "export const a = 2;");
  });

  it("refuses in a repository with no commit yet", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")), false);
    write(root, "a.js", "x\n");
    symlinkSync("/etc/hostname", join(root, "b.js"));
    assert.match(
      await refusal(root),
      /^the working tree cannot be judged: b\.js is a symlink to "\/etc\/hostname"/,
    );
  });

  it("a nested git repository that is not a registered submodule is refused", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    const nested = init(join(root, "vendor/lib"));
    assert.ok(nested);
    assert.equal(
      await refusal(root),
      "the working tree cannot be judged: vendor/lib is a nested git repository that is not a registered submodule",
    );
  });

  it("a registered submodule is judged, while an unregistered one next to it is still refused", async () => {
    const source = init(mkdtempSync(join(tmpdir(), "gantry-judge-src-")));
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    git(root, "submodule", "add", "-q", source, "vendor/lib");
    const judged = await judgeOf(root);
    assert.match(git(root, "ls-tree", judged.tree, "vendor/lib"), /^160000 commit /);
    init(join(root, "vendor/other"));
    assert.equal(
      await refusal(root),
      "the working tree cannot be judged: vendor/other is a nested git repository that is not a registered submodule",
    );
  });
});

describe("the judged tree (real repositories)", { concurrency: true }, () => {
  it("leaves .gantry/ out, even when HEAD holds it, and keeps a tracked file that is now ignored", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    write(root, ".gantry/config.json", "{}\n");
    write(root, "build/keep.txt", "tracked on purpose\n");
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "config and a tracked build file");
    write(root, ".gitignore", "build/\n");
    write(root, ".gantry/features/f/prd.json", "{}\n");
    write(root, "build/new.txt", "ignored\n");
    const judged = await judgeOf(root);
    assert.deepEqual(git(root, "ls-tree", "-r", "--name-only", judged.tree).split("\n"), [
      ".gitignore",
      "build/keep.txt",
      "src/a.js",
    ]);
  });

  it("follows HEAD when it moves between two judges", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    const repo = await openRepo(root);
    opened.push(repo);
    write(root, "src/b.js", "b\n");
    const first = await repo.judge();
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "b");
    rmSync(join(root, "src/a.js"));
    git(root, "rm", "-q", "--cached", "src/a.js");
    write(root, "src/c.js", "c\n");
    git(root, "add", "src/c.js");
    git(root, "commit", "-q", "-m", "a out, c in");
    const second = await repo.judge();
    assert.equal(second.sha, git(root, "rev-parse", "HEAD"));
    assert.notEqual(second.sha, first.sha);
    assert.equal(second.tree, git(root, "rev-parse", "HEAD^{tree}"));
  });

  it("a tree judged again is refused or judged as the first time: escapes are remembered per tree, not per HEAD", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    const repo = await openRepo(root);
    opened.push(repo);
    const refused = async () => {
      await assert.rejects(repo.judge({ recheck: true }), (error: Error) => {
        assert.ok(error instanceof JudgeRefusal, String(error));
        assert.match(error.message, /src\/out\.js is a symlink to "\/etc\/hostname", outside the repository/);
        return true;
      });
    };
    write(root, "src/b.js", "b\n");
    const clean = await repo.judge({ recheck: true });
    symlinkSync("/etc/hostname", join(root, "src/out.js"));
    await refused();
    await refused(); // the same tree again: its escape is remembered, still a refusal
    rmSync(join(root, "src/out.js"));
    const again = await repo.judge({ recheck: true });
    assert.equal(again.tree, clean.tree);
    symlinkSync("/etc/hostname", join(root, "src/out.js"));
    await refused();
  });

  it("whether the judged tree has HEAD's content is answered by the judge: .gantry/ aside, any change says no", async () => {
    const root = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    const repo = await openRepo(root);
    opened.push(repo);
    write(root, ".gantry/run.json", "{}\n");
    const unchanged = await repo.judge({ recheck: true });
    assert.equal(unchanged.tree, git(root, "rev-parse", "HEAD^{tree}"));
    assert.equal(await repo.sameContent(unchanged.sha, unchanged.tree), true);
    write(root, "src/a.js", "export const a = 2;\n");
    const changed = await repo.judge({ recheck: true });
    assert.equal(await repo.sameContent(changed.sha, changed.tree), false);
    // The same commit and tree asked of git itself (a name is never taken from the judge's answers).
    assert.equal(await repo.sameContent("HEAD", changed.tree), false);
    assert.equal(await repo.sameContent("HEAD", unchanged.tree), true);
  });

  it("in a project in a subdirectory, judges that folder (its .gantry/ aside); the rest of the repository is HEAD's", async () => {
    const top = init(mkdtempSync(join(tmpdir(), "gantry-judge-")));
    write(top, "packages/x/.gantry/config.json", "{}\n");
    write(top, "packages/x/index.js", "x\n");
    write(top, ".gantry/other.json", "{}\n");
    const judged = await judgeOf(join(top, "packages/x"));
    assert.deepEqual(git(top, "ls-tree", "-r", "--name-only", judged.tree).split("\n"), [
      "packages/x/index.js",
      "src/a.js",
    ]);
  });
});
