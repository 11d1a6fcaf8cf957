import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { browserInstallEnded } from "./system-setup.js";

describe("waiting for the Chromium install npm test started", () => {
  const dir = mkdtempSync(join(tmpdir(), "gantry-system-setup-"));
  const saved = process.env.TESTS_BROWSER_READY;
  after(() => {
    if (saved === undefined) delete process.env.TESTS_BROWSER_READY;
    else process.env.TESTS_BROWSER_READY = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("returns at once when no install was started beside the tests", async () => {
    delete process.env.TESTS_BROWSER_READY;
    const first = await Promise.race([
      browserInstallEnded().then(() => "returned"),
      setImmediate("waited on a timer"),
    ]);
    assert.equal(first, "returned");
  });

  it("returns only once run-tests.mjs has written the file it names", async () => {
    const marker = join(dir, "browser-ready");
    process.env.TESTS_BROWSER_READY = marker;
    let written = 0;
    setTimeout(() => {
      written = Date.now();
      writeFileSync(marker, "done\n");
    }, 600);
    await browserInstallEnded();
    assert.ok(written > 0, "returned before the install ended");
    assert.ok(Date.now() >= written);
  });
});
