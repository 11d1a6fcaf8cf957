import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { leavesRepository } from "../../src/git/judge.js";

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
  });
});
