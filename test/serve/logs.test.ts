import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gantry, makeProject, story } from "../e2e/harness.js";

describe("gantry logs (built CLI), without a run", () => {
  it("says there are no runs, and refuses a run id that is not one", async () => {
    const root = makeProject({ stories: [story("US-1")], plan: {} });
    const empty = await gantry(root, ["logs"]);
    assert.equal(empty.code, 0);
    assert.match(empty.stdout, /no runs under \.gantry\/runs\/ yet/);
    const other = await gantry(root, ["logs", "-f", "nothing-here"]);
    assert.match(other.stdout, /no runs .* for feature nothing-here/);
    const bad = await gantry(root, ["logs", "--run", "../etc"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--run.*no run "\.\.\/etc"/);
  });
});
