import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { declaredStatePaths, sessionHome, sessionHomeArgs } from "../../src/process/session-home.js";

const scratch = mkdtempSync(join(tmpdir(), "gantry-session-home-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("sessionHome", () => {
  test("binds only the declared state paths that exist inside the home, at their place and in the scratch home", () => {
    const home = join(scratch, "home");
    const own = join(scratch, "own");
    mkdirSync(join(home, ".claude"), { recursive: true });
    writeFileSync(join(home, ".claude.json"), "{}");
    mkdirSync(own, { recursive: true });
    const declared = declaredStatePaths(["claude"], ["~/.missing", "/etc", "~/../outside"]);
    assert.deepEqual(declared, [".claude", ".claude.json", "~/.missing", "/etc", "~/../outside"]);
    const session = sessionHome(declared, { HOME: home }, own);
    assert.deepEqual(session, {
      home,
      scratch: own,
      state: [join(home, ".claude"), join(home, ".claude.json")],
    });
    assert.deepEqual(sessionHomeArgs(session), [
      ...["--ro-bind", home, home, "--bind", own, own],
      ...[
        "--bind",
        join(home, ".claude"),
        join(home, ".claude"),
        "--bind",
        join(home, ".claude"),
        join(own, ".claude"),
      ],
      ...["--bind", join(home, ".claude.json"), join(home, ".claude.json")],
      ...["--bind", join(home, ".claude.json"), join(own, ".claude.json")],
      ...["--setenv", "HOME", own],
      ...["--unsetenv", "XDG_CONFIG_HOME", "--unsetenv", "XDG_CACHE_HOME"],
      ...["--unsetenv", "XDG_DATA_HOME", "--unsetenv", "XDG_STATE_HOME"],
    ]);
  });
});
