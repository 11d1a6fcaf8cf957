import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { missingPrograms } from "../../src/cli/init-checks.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-init-checks-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder holding executables that are shell scripts, first on a PATH that still has the system's tools. */
function pathWith(programs: Record<string, string>): string {
  const bin = mkdtempSync(join(scratch, "bin-"));
  for (const [name, body] of Object.entries(programs)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return `${bin}:/usr/bin:/bin`;
}

describe("missingPrograms", () => {
  // This python finds a module when the probe it is given names `present_mod`, as importlib would.
  const PATH = pathWith({ python3: 'case "$2" in *present_mod*) exit 0 ;; esac; exit 1' });

  it("asks the project's python whether each `-m` module is importable", async () => {
    const missing = await missingPrograms("python3 -m present_mod && python3 -m absent_mod", scratch, {
      PATH,
    });
    assert.deepEqual(missing, ["absent_mod (python3 -m)"]);
  });

  it("names a program not on PATH and an npx tool not in node_modules/.bin", async () => {
    const root = mkdtempSync(join(scratch, "root-"));
    mkdirSync(join(root, "node_modules", ".bin"), { recursive: true });
    const npxPath = pathWith({ npx: "exit 0" });
    const missing = await missingPrograms("no-such-tool-xyz --x; npx tsc --noEmit", root, {
      PATH: npxPath,
    });
    assert.deepEqual(missing, ["no-such-tool-xyz", "tsc (npx)"]);
  });
});
