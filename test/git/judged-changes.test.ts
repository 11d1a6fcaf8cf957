import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { JudgeRefusal } from "../../src/git/judge.js";
import { knownJudgedDiff, parseJudgedDiff, rememberJudgedDiff } from "../../src/git/judged-changes.js";
import { openRepo } from "../../src/git/repo.js";
import { treeChanges } from "../../src/verification/strategies/test-integrity/tree-diff.js";
import { git, write } from "../support/fixture-repo.js";

const work = realpathSync(mkdtempSync(join(tmpdir(), "gantry-judged-changes-")));
after(() => rmSync(work, { recursive: true, force: true }));

let repos = 0;
function repo(files: Record<string, string>): { root: string; base: string } {
  const root = join(work, `repo-${++repos}`);
  mkdirSync(root);
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.name", "Test");
  git(root, "config", "user.email", "test@example.com");
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "base");
  return { root, base: git(root, "rev-parse", "HEAD") };
}

const CONFIG = `${JSON.stringify({ quality: { commands: { test: "node --test" } }, note: "x".repeat(400) }, null, 2)}\n`;

describe("the story's changes from the judge's own diff-tree", () => {
  it("parses raw diff-tree output relative to the project root, and refuses what it does not expect", () => {
    const raw = [
      ":000000 100644 0000 1111 A",
      "pkg/src/new.ts",
      ":100644 100644 2222 3333 M",
      "pkg/a.ts",
      ":100644 000000 4444 0000 D",
      "other/b.ts",
      "",
    ].join("\0");
    assert.deepEqual(parseJudgedDiff(raw, "pkg/"), [
      { status: "A", path: "src/new.ts" },
      { status: "M", path: "a.ts" },
    ]);
    assert.deepEqual(parseJudgedDiff("", ""), []);
    assert.equal(parseJudgedDiff(":100644 100644 1 2 R100\0a\0b\0", ""), undefined);
  });

  it("gives what git's own diff gives when the story deleted nothing, and git decides when it did", async () => {
    const { root, base } = repo({
      "src/a.ts": "a\n",
      "test/a.test.ts": "test('a', () => {});\n",
      ".gantry/config.json": CONFIG,
    });
    const repository = await openRepo(root);
    write(root, "src/a.ts", "a2\n");
    write(root, "test/b.test.ts", "test.skip('b', () => {});\n");
    // A new file with .gantry/config.json's content: the judged tree has no .gantry/, so a rename-detecting
    // diff against the base commit could pair the two. Neither answer may.
    write(root, "copy.json", CONFIG);
    const { sha, tree } = await repository.judge();
    assert.equal(sha, base);
    const known = repository.judgedChanges?.(base, tree);
    assert.ok(known, "the judge compared exactly these two");
    const fromJudge = await treeChanges(root, base, tree, known);
    const fromGit = await treeChanges(root, base, tree);
    const sorted = <T extends { path: string }>(list: T[]) =>
      [...list].sort((x, y) => x.path.localeCompare(y.path));
    assert.deepEqual(sorted(fromJudge), sorted(fromGit));
    assert.deepEqual(
      sorted(fromJudge).map((c) => `${c.status} ${c.path}`),
      ["A copy.json", "M src/a.ts", "A test/b.test.ts"],
    );
    assert.deepEqual(await repository.changedFiles(base, tree), ["copy.json", "src/a.ts", "test/b.test.ts"]);
    assert.equal(repository.judgedChanges?.(base, "0".repeat(40)), undefined, "another tree: git is asked");

    // A deletion makes a rename possible: git's rename-detecting diff is the answer then.
    unlinkSync(join(root, "test/a.test.ts"));
    write(root, "test/renamed.ts", "test('a', () => {});\n");
    const judged = await repository.judge({ recheck: true });
    const changes = await treeChanges(root, base, judged.tree, repository.judgedChanges?.(base, judged.tree));
    assert.ok(
      changes.some((c) => c.status === "R" && c.from === "test/a.test.ts" && c.path === "test/renamed.ts"),
      JSON.stringify(changes),
    );
    repository.close();
  });

  it("a HEAD and tree judged before (another worktree, a judge again): its diff-tree is not run again", async () => {
    const { root, base } = repo({ "src/a.ts": "a\n" });
    write(root, "src/a.ts", "a2\n");
    const first = await openRepo(root);
    const { tree } = await first.judge();
    const raw = knownJudgedDiff("", base, tree);
    assert.equal(
      raw,
      `:100644 100644 ${git(root, "rev-parse", "HEAD:src/a.ts")} ${git(root, "hash-object", "src/a.ts")} M\0src/a.ts\0`,
    );
    first.close();
    // The same tree judged from another opening of the repository: the diff is the one known, not git's
    // (a stand-in put in its place shows which one the judge took).
    rememberJudgedDiff("", base, tree, ":100644 100644 1111 2222 M\0src/stand-in.ts\0");
    const second = await openRepo(root);
    assert.equal((await second.judge()).tree, tree);
    assert.deepEqual(second.judgedChanges?.(base, tree), [{ status: "M", path: "src/stand-in.ts" }]);
    // Another tree at the same HEAD is diffed again (from the objects, judged-tree-in-node.ts).
    write(root, "src/b.ts", "b\n");
    const other = await second.judge({ recheck: true });
    assert.notEqual(other.tree, tree);
    assert.deepEqual(second.judgedChanges?.(base, other.tree), [
      { status: "M", path: "src/a.ts" },
      { status: "A", path: "src/b.ts" },
    ]);
    second.close();
  });

  it("a tree whose diff is known is still checked for escapes in each repository that judges it", async () => {
    const { root } = repo({ "src/a.ts": "a\n" });
    symlinkSync("/etc/passwd", join(root, "src/out"));
    const first = await openRepo(root);
    await assert.rejects(first.judge(), JudgeRefusal);
    first.close();
    const second = await openRepo(root);
    await assert.rejects(second.judge(), /src\/out is a symlink to "\/etc\/passwd", outside the repository/);
    second.close();
  });
});
