import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openRepo } from "../../src/git/repo.js";
import { noteCommand } from "../../src/process/activity.js";
import { commitAll, git, write } from "../support/fixture-repo.js";

// git's own trace names every git program gantry starts (set before the first one: the helpers keep it).
const work = mkdtempSync(join(tmpdir(), "gantry-judge-running-"));
const trace = join(work, "trace.txt");
writeFileSync(trace, "");
process.env.GIT_TRACE = trace;
/** The git subcommands started since the last call. */
function started(): string[] {
  const lines = readFileSync(trace, "utf8").split("\n");
  writeFileSync(trace, "");
  return lines.flatMap((line) => {
    const match = /trace: built-in: git (?:-c \S+ )*(\S+)/.exec(line);
    return match?.[1] ? [match[1]] : [];
  });
}

/**
 * With parallel stories some worker's tests, lint or typecheck nearly always run, and they count for every
 * tree. While only such read-only commands run, a judged tree is kept and the next judge is a stat pass
 * (which sees what they changed); while a command that may write runs, nothing is kept.
 */
describe("the judge while other workers' commands run", () => {
  after(() => rmSync(work, { recursive: true, force: true }));

  async function fixture() {
    const root = join(work, `repo-${Math.random().toString(36).slice(2)}`);
    write(root, "src/a.js", "export const a = 1;\n");
    commitAll(root);
    const repo = await openRepo(root);
    after(() => repo.close());
    return { root, repo };
  }

  it("a read-only command running: a stat pass, no add; what it writes meanwhile is seen", async () => {
    const { root, repo } = await fixture();
    const ended = noteCommand(false);
    try {
      const first = await repo.judge();
      started();
      assert.deepEqual(await repo.judge(), first);
      assert.equal(started().includes("add"), false, "the tree was not built again");
      write(root, "src/b.js", "export const b = 1;\n");
      const second = await repo.judge();
      assert.notEqual(second.tree, first.tree);
      assert.equal(git(root, "show", `${second.tree}:src/b.js`), "export const b = 1;");
      assert.deepEqual(await repo.judge(), second, "still running: looked at again, unchanged");
    } finally {
      ended();
    }
    write(root, "src/a.js", "export const a = 2;\n");
    const third = await repo.judge();
    assert.equal(git(root, "show", `${third.tree}:src/a.js`), "export const a = 2;", "its last writes too");
  });

  it("a command that may write running: every judge builds the tree", async () => {
    const { root, repo } = await fixture();
    const ended = noteCommand(true);
    try {
      const first = await repo.judge();
      started();
      assert.deepEqual(await repo.judge(), first);
      assert.equal(started().includes("add"), true, "nothing kept while it runs");
      write(root, "src/b.js", "export const b = 1;\n");
    } finally {
      ended();
    }
    const after = await repo.judge();
    assert.equal(git(root, "show", `${after.tree}:src/b.js`), "export const b = 1;");
  });
});
