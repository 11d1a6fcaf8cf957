import assert from "node:assert/strict";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { moveWorktree } from "../../../src/git/merge.js";
import { RefBook } from "../../../src/git/ref-book.js";
import { openStoryWorktree, worktreeHome } from "../../../src/pipeline/parallel/story-worktrees.js";
import { workerContext } from "../../../src/pipeline/parallel/worker-context.js";
import { activity } from "../../../src/process/activity.js";
import { execCommand } from "../../../src/process/executor.js";
import { sandboxSupport } from "../../../src/process/sandbox.js";
import type { RunContext } from "../../../src/stages/context.js";
import { git, write } from "../../support/fixture-repo.js";

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;

/**
 * Two workers' judges, each cached for its own worktree: a command of worker A that may write anywhere
 * (a test, a fixer or a session without the sandbox) counts for B's judge too; A's sandboxed session,
 * which cannot write B, does not.
 */
describe("judges of parallel workers", () => {
  const roots: string[] = [];
  const closers: (() => void)[] = [];
  after(() => {
    for (const close of closers) close();
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });

  let made: ReturnType<typeof makeWorkers> | undefined;
  /** One repository with worktrees A and B for every case (each case leaves both judged and clean enough). */
  const workers = () => {
    made ??= makeWorkers(true);
    return made;
  };

  async function makeWorkers(sandbox: boolean) {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "gantry-worker-judge-")));
    roots.push(root);
    git(root, "init", "-q", "-b", "main");
    write(root, "src/a.js", "a\n");
    git(root, "add", "-A");
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base");
    const home = await worktreeHome(root, "f");
    const book = new RefBook();
    const tip = git(root, "rev-parse", "HEAD");
    const run = { root, ...(sandbox && support.bwrap ? { sandbox: [support.bwrap] } : {}) } as RunContext;
    const open = async (id: string) => {
      const worktree = await openStoryWorktree(home, book, id, tip);
      const worker = await workerContext(run, home, book, worktree);
      closers.push(worker.close);
      return { path: worktree.path, ctx: worker.ctx };
    };
    return { a: await open("A"), b: await open("B"), tip };
  }

  /** A command in A's worktree: under A's sandbox (as its sessions and fixers run), or not (as its tests run). */
  const inA = (
    a: { path: string; ctx: RunContext },
    command: string,
    readsOnly: boolean,
    sandboxed: boolean,
  ) =>
    execCommand({
      command,
      cwd: a.path,
      timeoutMs: 20_000,
      readsOnly,
      ...(sandboxed && a.ctx.sandbox ? { wrapper: a.ctx.sandbox } : {}),
    });

  it("a command of worker A (no sandbox) that writes into B's worktree: B's next judge sees it", async () => {
    const { a, b } = await workers();
    for (const readsOnly of [true, false]) {
      const before = await b.ctx.git.judge();
      assert.deepEqual(await b.ctx.git.judge(), before, "nothing ran: B's tree as judged");
      const file = `src/from-a-${readsOnly}.js`;
      const done = await inA(
        a,
        `echo "written by A" > ${JSON.stringify(join(b.path, file))}`,
        readsOnly,
        false,
      );
      assert.equal(done.exitCode, 0, done.output);
      const after = await b.ctx.git.judge();
      assert.notEqual(after.tree, before.tree, `readsOnly ${readsOnly}: B's judge sees the file`);
      assert.equal(git(b.path, "show", `${after.tree}:${file}`), "written by A");
    }
  });

  it("A's sandboxed session writes its own worktree alone: A's judge sees it, B's record is untouched", {
    skip: noBwrap,
  }, async () => {
    const { a, b } = await workers();
    assert.ok(a.ctx.sandbox, "the worker has its sandbox");
    const judgedB = await b.ctx.git.judge();
    const before = await a.ctx.git.judge();
    const inB = join(b.path, "src", "sneaked.js");
    const bActivity = activity(realpathSync(b.path));
    const done = await inA(a, `echo mine > src/a.js; echo sneaked > ${JSON.stringify(inB)}`, false, true);
    assert.notEqual(done.exitCode, 0, "B's worktree is read-only in A's sandbox");
    assert.equal(existsSync(inB), false);
    assert.deepEqual(activity(realpathSync(b.path)), bActivity, "nothing B's judge needs to look again for");
    assert.deepEqual(await b.ctx.git.judge(), judgedB);
    const after = await a.ctx.git.judge();
    assert.notEqual(after.tree, before.tree);
    assert.equal(git(a.path, "show", `${after.tree}:src/a.js`), "mine");
  });

  it("gantry moving A onto a merged tree counts for A's judge, not for B's", async () => {
    const { a, b } = await workers();
    const tip = git(a.path, "rev-parse", "HEAD");
    write(b.path, "src/b.js", "b\n");
    git(b.path, "add", "-A");
    git(b.path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "b");
    const judgedA = await a.ctx.git.judge();
    const bActivity = activity(realpathSync(b.path));
    await moveWorktree(a.path, tip, git(b.path, "rev-parse", "HEAD^{tree}"));
    assert.deepEqual(activity(realpathSync(b.path)), bActivity);
    const movedA = await a.ctx.git.judge();
    assert.notEqual(movedA.tree, judgedA.tree);
    assert.equal(git(a.path, "show", `${movedA.tree}:src/b.js`), "b");
  });
});
