import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { trustedProgram } from "../../src/process/system-program.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-system-program-"));
// Outside /tmp and the home: a folder a session could not write.
const outside = mkdtempSync(join(process.cwd(), ".gantry-test-programs-"));
after(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function program(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), "#!/bin/sh\n");
  chmodSync(join(dir, name), 0o755);
  return join(dir, name);
}

describe("trustedProgram", () => {
  test("skips PATH entries in the home, /tmp, $TMPDIR, the tree and relative ones; takes the first other", () => {
    const home = join(outside, "home");
    const tree = join(outside, "tree");
    const system = join(outside, "system");
    program(join(home, ".cargo", "bin"), "git");
    program(join(scratch, "bin"), "git");
    program(join(tree, "bin"), "git");
    const real = program(system, "git");
    const env = {
      HOME: home,
      PATH: [join(home, ".cargo", "bin"), join(scratch, "bin"), "bin", join(tree, "bin"), system].join(":"),
    };
    assert.equal(trustedProgram("git", env, tree), real);
  });

  test("none when every entry holding it is writable by a session", () => {
    const home = join(outside, "home2");
    program(join(home, "bin"), "bwrap");
    assert.equal(trustedProgram("bwrap", { HOME: home, PATH: join(home, "bin") }), undefined);
  });
});
