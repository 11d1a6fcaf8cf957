import assert from "node:assert/strict";
import fs, { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { processAlive } from "../../src/process/process-group.js";
import { removeLeftoverTemps, writeFileAtomic } from "../../src/util/atomic-write.js";

describe("atomic writes", () => {
  it("a temp file left by a killed writer is removed; a live writer's and unrelated files are kept", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-atomic-"));
    const prd = join(dir, "prd.json");
    writeFileAtomic(prd, "{}\n");
    // No process has this pid (above Linux's largest pid_max).
    const dead = ".prd.json.99999999.1796079158020.tmp";
    const live = `.prd.json.${process.pid}.1796079158021.tmp`;
    for (const name of [dead, live, ".state.json.99999999.1.tmp", "notes.tmp"])
      writeFileSync(join(dir, name), "x");
    removeLeftoverTemps(prd, processAlive);
    assert.deepEqual(
      readdirSync(dir).sort(),
      [live, ".state.json.99999999.1.tmp", "notes.tmp", "prd.json"].sort(),
    );
    removeLeftoverTemps(join(dir, "missing", "prd.json"), processAlive);
  });

  it("a durable write syncs the file and its folder; one that is not syncs the file before the rename only", () => {
    const dir = mkdtempSync(join(tmpdir(), "gantry-atomic-"));
    const state = join(dir, "state.json");
    const synced: string[] = [];
    const original = { fsyncSync: fs.fsyncSync, fdatasyncSync: fs.fdatasyncSync };
    const record = (how: string) => (fd: number) => {
      const isFolder = fs.fstatSync(fd).isDirectory();
      // The file is synced while it is still the temp file: never a renamed file with no content on disk.
      const what = isFolder ? "folder" : readdirSync(dir).some((n) => n.endsWith(".tmp")) ? "temp" : "file";
      synced.push(`${what} ${how}`);
      original[how === "fsync" ? "fsyncSync" : "fdatasyncSync"](fd);
    };
    fs.fsyncSync = record("fsync");
    fs.fdatasyncSync = record("fdatasync");
    syncBuiltinESMExports();
    try {
      writeFileAtomic(state, "1\n");
      assert.deepEqual(synced.splice(0), ["temp fdatasync", "folder fsync"]);
      writeFileAtomic(state, "2\n", { durable: false });
      assert.deepEqual(synced.splice(0), ["temp fdatasync"]);
    } finally {
      Object.assign(fs, original);
      syncBuiltinESMExports();
    }
    assert.equal(readFileSync(state, "utf8"), "2\n");
    assert.deepEqual(readdirSync(dir), ["state.json"]);
  });
});
