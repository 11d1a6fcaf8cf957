import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RefBook } from "../../src/git/ref-book.js";
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
});
