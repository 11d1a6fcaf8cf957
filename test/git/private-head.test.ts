import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type TreeScope, UNBORN, writePrivateHead } from "../../src/git/judge.js";

describe("the private HEAD", () => {
  it("holds exactly the last head written, longer or shorter than the one before, rewritten in place", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-private-head-"));
    writeFileSync(join(dir, "HEAD"), "ref: refs/heads/gantry-private\n");
    const scope = { git: { dir, env: {}, dispose: () => {} } } as unknown as TreeScope;
    const sha = "a".repeat(40);
    const read = () => readFileSync(join(dir, "HEAD"), "utf8");
    writePrivateHead(scope, sha);
    assert.equal(read(), `${sha}\n`);
    writePrivateHead(scope, UNBORN);
    assert.equal(read(), "ref: refs/heads/gantry-private\n");
    writePrivateHead(scope, "b".repeat(40));
    assert.equal(read(), `${"b".repeat(40)}\n`);
  });
});
