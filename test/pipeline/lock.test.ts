import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InputError } from "../../src/config/input-error.js";
import { acquireLock, LOCK_FILE } from "../../src/pipeline/lock.js";

function project(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-lock-"));
  mkdirSync(join(root, ".gantry"));
  return root;
}

/** The pid of a process that has exited (and been reaped), so no process has it now. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(child.stdout);
}

describe("run lock", () => {
  it("holds this process's pid while taken and is gone once released", () => {
    const root = project();
    const release = acquireLock(root);
    assert.equal(readFileSync(join(root, LOCK_FILE), "utf8").trim(), String(process.pid));
    release();
    assert.equal(existsSync(join(root, LOCK_FILE)), false);
  });

  it("refuses while a live process holds the lock, naming its pid, and leaves the lock alone", async () => {
    const root = project();
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "ignore" });
    try {
      writeFileSync(join(root, LOCK_FILE), `${holder.pid}\n`);
      assert.throws(
        () => acquireLock(root),
        (error: Error) =>
          error instanceof InputError &&
          error.message ===
            `.gantry/lock: another gantry run (pid ${holder.pid}) is working on this repository; wait for it or stop it`,
      );
      assert.equal(readFileSync(join(root, LOCK_FILE), "utf8").trim(), String(holder.pid));
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("takes over a stale lock, one whose process is gone or that holds no pid", () => {
    for (const stale of [`${deadPid()}\n`, "not a pid\n", ""]) {
      const root = project();
      writeFileSync(join(root, LOCK_FILE), stale);
      const release = acquireLock(root);
      assert.equal(
        readFileSync(join(root, LOCK_FILE), "utf8").trim(),
        String(process.pid),
        JSON.stringify(stale),
      );
      release();
    }
  });

  it("release leaves a lock another run has taken since", () => {
    const root = project();
    const release = acquireLock(root);
    writeFileSync(join(root, LOCK_FILE), "999999999\n");
    release();
    assert.equal(readFileSync(join(root, LOCK_FILE), "utf8"), "999999999\n");
  });
});
