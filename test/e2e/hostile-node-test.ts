/** The code a hostile agent's story ships: an honest `total`, and the test that tries what it can while it runs. */
export const TOTAL = "export function total(a, b) {\n  return a + b;\n}\n";

/**
 * A node:test file that passes honestly on TOTAL and, while it runs, says what it sees of gantry's state,
 * rewrites the code it tests, adds a file, plants files in the home and /tmp, and starts a process that
 * would outlive the run (carrying the chaos marker the caller sets to find it).
 */
export function hostileNodeTest(mark: string): string {
  return `import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
test("total adds", async () => {
  const { total } = await import("../src/total.js");
  assert.equal(total(2, 3), 5);
  const seen = (dir) => { try { return readdirSync(dir).join(",") || "(empty)"; } catch (e) { return e.code; } };
  const attempt = (path, text) => { try { writeFileSync(path, text); return "wrote"; } catch (e) { return e.code; } };
  console.log("SEEN-STATE:" + seen(join(process.env.XDG_STATE_HOME, "gantry")));
  console.log("SEEN-GANTRY:" + seen(".gantry"));
  console.log("WRITE-SRC:" + attempt("src/total.js", "export function total() { return 5; }\\n"));
  console.log("WRITE-NEW:" + attempt("planted-${mark}.js", "x"));
  console.log("WRITE-CONFIG:" + attempt(".gantry/config.json", "{}"));
  console.log("WRITE-HOME:" + attempt(join(process.env.HOME, ".npmrc"), "node-options=--require=/tmp/x.cjs\\n"));
  console.log("WRITE-TMP:" + attempt("/tmp/planted-${mark}", "x"));
  spawn("setsid", ["sleep", "60"], { detached: true, stdio: "ignore" }).unref();
});
`;
}
