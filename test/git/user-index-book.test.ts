import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { UserIndexReset } from "../../src/git/user-index.js";
import { UserIndexBook } from "../../src/git/user-index-book.js";

/** What a merge hands the book after gantry's commit: only its bytes matter here (no key: flags read again). */
const wrote = (bytes: Buffer): UserIndexReset =>
  ({ bytes, names: new Uint32Array(0), count: 0, added: [], removed: [], oldKey: "old" }) as UserIndexReset;

describe("the buffers the user's index is merged into", () => {
  it("lends a buffer kept for the run, never the one holding the index written last", () => {
    const book = new UserIndexBook("/nonexistent/index", 20);
    const first = book.buffer(1000);
    assert.equal(first.length, 1000);
    first.fill(7);
    book.committed(wrote(first));
    const second = book.buffer(1000);
    assert.notEqual(second.buffer, first.buffer, "the next merge reads the index written last");
    book.committed(wrote(second));
    const third = book.buffer(900);
    assert.equal(third.buffer, first.buffer, "the one before is free again: no fresh pages");
    assert.ok(
      third.every((byte) => byte === 7),
      "not zeroed (the merge writes every byte: user-index.test.ts)",
    );
    book.committed(undefined);
    assert.notEqual(book.buffer(5000).buffer, first.buffer, "too small: a new one");
  });
});
