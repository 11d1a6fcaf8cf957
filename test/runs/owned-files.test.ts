import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { restoreOwnedFiles, snapshotOwnedFiles } from "../../src/runs/owned-files.js";

function project(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-owned-"));
  mkdirSync(join(root, ".gantry/features/f"), { recursive: true });
  mkdirSync(join(root, ".gantry/runs/r1"), { recursive: true });
  writeFileSync(join(root, ".gantry/config.json"), '{"a":1}\n');
  writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"userStories":[]}\n');
  writeFileSync(join(root, ".gantry/runs/r1/ledger.jsonl"), "");
  return root;
}

describe("gantry-owned files", () => {
  it("puts back changed and removed files, removes added ones, and leaves run files alone", () => {
    const root = project();
    const before = snapshotOwnedFiles(root);
    assert.deepEqual([...before.keys()].sort(), [".gantry/config.json", ".gantry/features/f/prd.json"]);
    writeFileSync(join(root, ".gantry/config.json"), '{"a":2}\n');
    rmSync(join(root, ".gantry/features/f/prd.json"));
    mkdirSync(join(root, ".gantry/features/g"));
    writeFileSync(join(root, ".gantry/features/g/prd.json"), "{}");
    writeFileSync(join(root, ".gantry/runs/r1/ledger.jsonl"), "forged\n");
    assert.deepEqual(restoreOwnedFiles(root, before).sort(), [
      ".gantry/config.json: changed",
      ".gantry/features/f/prd.json: removed",
      ".gantry/features/g/prd.json: added",
    ]);
    assert.equal(readFileSync(join(root, ".gantry/config.json"), "utf8"), '{"a":1}\n');
    assert.equal(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"), '{"userStories":[]}\n');
    assert.ok(!existsSync(join(root, ".gantry/features/g/prd.json")));
    assert.equal(readFileSync(join(root, ".gantry/runs/r1/ledger.jsonl"), "utf8"), "forged\n");
    assert.deepEqual(restoreOwnedFiles(root, before), [], "nothing left to put back");
  });
});
