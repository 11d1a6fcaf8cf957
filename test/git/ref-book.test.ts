import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommitOptions, GitRepo } from "../../src/git/git-repo.js";
import { bookedRepo, RefBook } from "../../src/git/ref-book.js";
import type { GitSnapshot } from "../../src/git/tamper-snapshot.js";

describe("RefBook", () => {
  const snapshot = (refs: Record<string, string>) =>
    ({ refs: new Map(Object.entries(refs)) }) as unknown as GitSnapshot;

  it("counts a ref holding what gantry last put there as unchanged, and any other move as a change", () => {
    const book = new RefBook();
    book.record("refs/heads/main", "m2");
    book.record("refs/heads/gantry/f/story-B", "b1");
    book.record("refs/heads/gantry/f/story-C", undefined);
    const before = snapshot({
      "refs/heads/main": "m1",
      "refs/heads/gantry/f/story-C": "c1",
      "refs/heads/x": "x1",
    });
    const now = new Map(
      Object.entries({ "refs/heads/main": "m2", "refs/heads/gantry/f/story-B": "b1", "refs/heads/x": "x2" }),
    );
    const rebased = book.rebase(before, now);
    assert.deepEqual(Object.fromEntries(rebased.refs), {
      "refs/heads/main": "m2",
      "refs/heads/gantry/f/story-B": "b1",
      "refs/heads/x": "x1",
    });
    // The agent moved main past gantry's value: still a change.
    const moved = book.rebase(before, new Map([["refs/heads/main", "evil"]]));
    assert.equal(moved.refs.get("refs/heads/main"), "m1");
  });

  it("runs ref moves one at a time", async () => {
    const book = new RefBook();
    const order: string[] = [];
    const slow = book.exclusive(async () => {
      order.push("a-start");
      await new Promise((r) => setTimeout(r, 20));
      order.push("a-end");
    });
    const fast = book.exclusive(async () => {
      order.push("b");
    });
    await Promise.all([slow, fast]);
    assert.deepEqual(order, ["a-start", "a-end", "b"]);
  });

  /**
   * A worktree's repository as the worker sees it, over a recording stand-in for the real one (the real
   * one is exercised by test/pipeline/parallel): what each call reaches and in which order.
   */
  function recorded(refsNow: Record<string, string>, stash?: string) {
    const calls: string[] = [];
    const compared: GitSnapshot[] = [];
    let release = () => {};
    const committing = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inner = {
      head: async () => "h1",
      snapshot: async () => {
        calls.push("snapshot");
        return snapshot(refsNow);
      },
      restoreSince: async (before: GitSnapshot) => {
        calls.push("restoreSince");
        compared.push(before);
        return [];
      },
      // Like commit.ts: the commit object first, then the branch moved through `moveBranch`.
      commitJudged: async (_judged: unknown, _subject: string, options?: CommitOptions) => {
        calls.push("commit built");
        const move = async () => {
          calls.push("move start");
          await committing;
          calls.push("move end");
        };
        await (options?.moveBranch ? options.moveBranch("c9", move) : move());
        return "c9";
      },
      setAside: async () => {
        calls.push("setAside");
        return stash;
      },
    } as unknown as GitRepo;
    return { inner, calls, compared, release };
  }

  it("compares a session against gantry's own commits and stashes, one ref move at a time", async () => {
    const { inner, calls, compared, release } = recorded(
      { "refs/heads/story": "c9", "refs/stash": "s1" },
      "s1",
    );
    const book = new RefBook();
    const repo = bookedRepo(inner, book, "refs/heads/story");
    assert.equal(await repo.head(), "h1", "the rest of the repository is the worktree's own");
    const commit = repo.commitJudged({ sha: "x", tree: "t" }, "subject");
    const check = repo.restoreSince(snapshot({ "refs/heads/story": "b0" }));
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(calls, ["commit built", "move start"], "the session check waits for the branch move");
    release();
    assert.equal(await commit, "c9");
    await check;
    assert.equal(await repo.setAside("message"), "s1");
    await repo.restoreSince(snapshot({ "refs/heads/story": "b0" }));
    assert.deepEqual(calls, [
      "commit built",
      "move start",
      "move end",
      "snapshot",
      "restoreSince",
      "setAside",
      "snapshot",
      "restoreSince",
    ]);
    assert.deepEqual(Object.fromEntries(compared[0]?.refs ?? []), { "refs/heads/story": "c9" });
    assert.deepEqual(Object.fromEntries(compared[1]?.refs ?? []), {
      "refs/heads/story": "c9",
      "refs/stash": "s1",
    });
  });

  it("records no stash when there was nothing to set aside: a stash the session dropped is still a change", async () => {
    const { inner, compared } = recorded({});
    const repo = bookedRepo(inner, new RefBook(), "refs/heads/story");
    assert.equal(await repo.setAside("message"), undefined);
    await repo.restoreSince(snapshot({ "refs/stash": "s0" }));
    assert.deepEqual(Object.fromEntries(compared[0]?.refs ?? []), { "refs/stash": "s0" });
  });
});
