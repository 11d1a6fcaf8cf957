import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
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
    removeLeftoverTemps(prd);
    assert.deepEqual(
      readdirSync(dir).sort(),
      [live, ".state.json.99999999.1.tmp", "notes.tmp", "prd.json"].sort(),
    );
    removeLeftoverTemps(join(dir, "missing", "prd.json"));
  });
});
