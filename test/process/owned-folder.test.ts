import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ownedFolder } from "../../src/process/owned-folder.js";

/** The pid of a process that has ended. */
function deadPid(): number {
  const ended = spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(ended.stdout.trim());
}

describe("ownedFolder", () => {
  it("removes the folders of its prefix whose process is gone, and keeps live ones and other prefixes", async () => {
    const parent = mkdtempSync(join(tmpdir(), "gantry-owned-"));
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const dead = join(parent, `gantry-scratch-${deadPid()}-aB3dE9`);
      const live = join(parent, `gantry-scratch-${sleeper.pid}-Zz0099`);
      const otherPrefix = join(parent, `0123abcd-${deadPid()}-aaaaaa`);
      const notOurs = join(parent, "gantry-scratch-notes");
      for (const dir of [dead, live, otherPrefix, notOurs])
        mkdirSync(join(dir, "inside"), { recursive: true });
      const made = ownedFolder(parent, "gantry-scratch");
      assert.match(made, new RegExp(`gantry-scratch-${process.pid}-[A-Za-z0-9]{6}$`));
      assert.equal(existsSync(dead), false, "a dead run's folder is removed");
      assert.deepEqual(
        readdirSync(parent).sort(),
        [made, live, otherPrefix, notOurs].map((p) => p.slice(parent.length + 1)).sort(),
      );
    } finally {
      sleeper.kill("SIGKILL");
    }
  });
});
