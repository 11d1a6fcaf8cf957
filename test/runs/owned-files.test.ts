import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
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

  it("leaves the lock and run files alone only at the top of .gantry/, not deeper", () => {
    const root = project();
    writeFileSync(join(root, ".gantry/lock"), "123\n");
    mkdirSync(join(root, ".gantry/features/f/runs"), { recursive: true });
    writeFileSync(join(root, ".gantry/features/f/runs/notes.md"), "mine\n");
    writeFileSync(join(root, ".gantry/features/f/lock"), "spec\n");
    const before = snapshotOwnedFiles(root);
    writeFileSync(join(root, ".gantry/lock"), "456\n");
    writeFileSync(join(root, ".gantry/features/f/runs/notes.md"), "forged\n");
    rmSync(join(root, ".gantry/features/f/lock"));
    assert.deepEqual(restoreOwnedFiles(root, before).sort(), [
      ".gantry/features/f/lock: removed",
      ".gantry/features/f/runs/notes.md: changed",
    ]);
    assert.equal(readFileSync(join(root, ".gantry/lock"), "utf8"), "456\n");
    assert.equal(readFileSync(join(root, ".gantry/features/f/runs/notes.md"), "utf8"), "mine\n");
    assert.equal(readFileSync(join(root, ".gantry/features/f/lock"), "utf8"), "spec\n");
  });

  it("a file turned into a directory, or a removed folder, is put back", () => {
    const root = project();
    const before = snapshotOwnedFiles(root);
    rmSync(join(root, ".gantry/config.json"));
    mkdirSync(join(root, ".gantry/config.json"));
    writeFileSync(join(root, ".gantry/config.json/x"), "x");
    rmSync(join(root, ".gantry/features"), { recursive: true });
    assert.deepEqual(restoreOwnedFiles(root, before).sort(), [
      ".gantry/config.json/x: added",
      ".gantry/config.json: removed",
      ".gantry/features/f/prd.json: removed",
    ]);
    assert.equal(readFileSync(join(root, ".gantry/config.json"), "utf8"), '{"a":1}\n');
    assert.equal(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"), '{"userStories":[]}\n');
  });

  it("never writes through a symlink, and never writes back a file it did not copy", () => {
    const root = project();
    const outside = join(mkdtempSync(join(tmpdir(), "gantry-outside-")), "target");
    writeFileSync(outside, "outside\n");
    symlinkSync(outside, join(root, ".gantry/features/f/users-link"));
    const before = snapshotOwnedFiles(root);
    rmSync(join(root, ".gantry/config.json"));
    symlinkSync(outside, join(root, ".gantry/config.json"));
    symlinkSync(outside, join(root, ".gantry/features/f/agents-link"));
    rmSync(join(root, ".gantry/features/f/users-link"));
    assert.deepEqual(restoreOwnedFiles(root, before).sort(), [
      ".gantry/config.json: changed",
      ".gantry/features/f/agents-link: added",
    ]);
    assert.equal(readFileSync(outside, "utf8"), "outside\n", "the symlink's target is untouched");
    assert.ok(lstatSync(join(root, ".gantry/config.json")).isFile());
    assert.equal(readFileSync(join(root, ".gantry/config.json"), "utf8"), '{"a":1}\n');
    assert.ok(!existsSync(join(root, ".gantry/features/f/agents-link")));
    assert.ok(!existsSync(join(root, ".gantry/features/f/users-link")), "a link it did not copy stays gone");
  });

  it("copies up to 64 MiB of files; past that a file is left as it is, never written back", () => {
    const root = project();
    mkdirSync(join(root, ".gantry/specs"));
    const sized = (name: string, size: number) => {
      writeFileSync(join(root, ".gantry/specs", name), "");
      truncateSync(join(root, ".gantry/specs", name), size); // sparse: the size is real, the disk unused
    };
    const configAndPrd = '{"a":1}\n'.length + '{"userStories":[]}\n'.length;
    sized("a-large.bin", 64 * 1024 * 1024 - configAndPrd - 8);
    sized("b-fills-the-bound.bin", 8);
    sized("c-past-the-bound.bin", 1);
    const before = snapshotOwnedFiles(root);
    writeFileSync(join(root, ".gantry/specs/b-fills-the-bound.bin"), "edited\n");
    writeFileSync(join(root, ".gantry/specs/c-past-the-bound.bin"), "edited\n");
    assert.deepEqual(restoreOwnedFiles(root, before), [".gantry/specs/b-fills-the-bound.bin: changed"]);
    assert.deepEqual(readFileSync(join(root, ".gantry/specs/b-fills-the-bound.bin")), Buffer.alloc(8));
    assert.equal(readFileSync(join(root, ".gantry/specs/c-past-the-bound.bin"), "utf8"), "edited\n");
  });

  it("copies at most 5000 files; the ones past the bound are not written back", () => {
    const root = project();
    mkdirSync(join(root, ".gantry/specs"));
    const names = Array.from({ length: 5000 }, (_, i) => `.gantry/specs/s${String(i).padStart(4, "0")}.md`);
    for (const name of names) writeFileSync(join(root, name), "spec\n");
    // config.json and features/f/prd.json come first: two spec files are past the bound.
    const before = snapshotOwnedFiles(root);
    for (const name of names.slice(-3)) writeFileSync(join(root, name), "edited\n");
    assert.deepEqual(restoreOwnedFiles(root, before), [".gantry/specs/s4997.md: changed"]);
    assert.deepEqual(
      names.slice(-3).map((name) => readFileSync(join(root, name), "utf8")),
      ["spec\n", "edited\n", "edited\n"],
    );
  });

  it("in a project without .gantry/, files an agent puts there are removed", () => {
    const root = mkdtempSync(join(tmpdir(), "gantry-owned-"));
    const before = snapshotOwnedFiles(root);
    assert.equal(before.size, 0);
    mkdirSync(join(root, ".gantry/features/f"), { recursive: true });
    writeFileSync(join(root, ".gantry/features/f/prd.json"), '{"userStories":[]}\n');
    assert.deepEqual(restoreOwnedFiles(root, before), [".gantry/features/f/prd.json: added"]);
    assert.ok(!existsSync(join(root, ".gantry/features/f/prd.json")));
  });
});
