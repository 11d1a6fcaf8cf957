import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { dropFileHead } from "../../src/process/drop-file-head.js";

const dir = mkdtempSync(join(tmpdir(), "gantry-drop-head-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("dropFileHead", () => {
  it("frees the first bytes' blocks and keeps the file's size and every byte after them", () => {
    const file = join(dir, "out");
    writeFileSync(file, Buffer.alloc(3 * 1024 * 1024, "a"));
    appendFileSync(file, "tail\n");
    const before = statSync(file);
    assert.equal(dropFileHead(file, 2 * 1024 * 1024 + 10), true);
    const after = statSync(file);
    assert.equal(after.size, before.size, "the size stays: a writer appending keeps its place");
    assert.ok(
      after.blocks * 512 <= before.blocks * 512 - 2 * 1024 * 1024,
      `${before.blocks} -> ${after.blocks}`,
    );
    const bytes = readFileSync(file);
    assert.equal(
      bytes.subarray(0, 2 * 1024 * 1024 + 10).every((b) => b === 0),
      true,
      "the head reads as zeros",
    );
    assert.equal(bytes.subarray(2 * 1024 * 1024 + 10).toString(), `${"a".repeat(1024 * 1024 - 10)}tail\n`);
  });

  it("says false for nothing to drop and for a file that is not there", () => {
    assert.equal(dropFileHead(join(dir, "out"), 0), false);
    assert.equal(dropFileHead(join(dir, "missing"), 100), false);
  });
});
