import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { reapMarked } from "../chaos/harness.js";
import { baseConfig, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";

/**
 * The agent's own test, run by gantry as a judging command, through the built CLI with node's runner: it
 * passes honestly and, while it runs, rewrites the code it tests, plants files in the home and /tmp,
 * looks for gantry's state and starts a process that would outlive the run. Under the sandbox nothing of
 * that survives it or is seen by it; the story still passes on the code the agent wrote.
 */

const support = await sandboxSupport();
const noBwrap = support.works ? false : `bwrap does not work here: ${support.reason}`;
if (noBwrap) console.log(`# skipping: ${noBwrap}`);

const scratch = mkdtempSync(join(tmpdir(), "gantry-e2e-hostile-judging-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const TOTAL = "export function total(a, b) {\n  return a + b;\n}\n";

function hostileTest(mark: string): string {
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
  console.log("WRITE-CONFIG:" + attempt(".gantry/config.json", "{}"));
  console.log("WRITE-HOME:" + attempt(join(process.env.HOME, ".npmrc"), "node-options=--require=/tmp/x.cjs\\n"));
  console.log("WRITE-TMP:" + attempt("/tmp/planted-${mark}", "x"));
  spawn("setsid", ["sleep", "60"], { detached: true, stdio: "ignore" }).unref();
});
`;
}

describe("the agent's tests run as judging commands (built CLI, node's runner)", () => {
  it('agent.sandbox "bwrap": what the test wrote, planted or started does not survive it, and it sees no gantry state', {
    skip: noBwrap,
  }, async () => {
    const mark = `hostile-judging-${process.pid}-${Date.now()}`;
    const home = join(scratch, "home");
    const state = join(home, ".local", "state");
    mkdirSync(join(state, "gantry"), { recursive: true });
    writeFileSync(join(state, "gantry", "secret-sentinel"), "key\n");
    const config = { ...baseConfig(), agent: { ...(baseConfig().agent as object), sandbox: "bwrap" } };
    const root = makeProject({
      stories: [story("US-1")],
      plan: { "US-1": [{ write: { "src/total.js": TOTAL, "test/total.test.js": hostileTest(mark) } }] },
      config,
    });
    const configBefore = readFileSync(join(root, ".gantry", "config.json"), "utf8");
    const result = await gantry(root, ["run", "--feature", "f"], {
      env: { HOME: home, XDG_STATE_HOME: state, GANTRY_CHAOS_MARKER: mark },
    });
    const left = await reapMarked(mark);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");

    const said = lastRun(root)
      .events.filter((e) => e.type === "verify:result")
      .map((e) => String(e.rawOutputTail ?? ""))
      .join("\n");
    assert.match(said, /WRITE-SRC:wrote/, "the test ran and could write the tree it judged");
    assert.match(said, /SEEN-STATE:\(empty\)/, "gantry's state directory is an empty folder to it");
    assert.doesNotMatch(said, /secret-sentinel|SEEN-GANTRY:[^\n]*config/);

    assert.deepEqual(left, [], "a process the test started outlived the run");
    assert.equal(
      readFileSync(join(root, "src", "total.js"), "utf8"),
      TOTAL,
      "the tree is as the agent left it",
    );
    assert.equal(
      git(root, "show", "HEAD:src/total.js"),
      TOTAL,
      "the commit carries the code that was tested",
    );
    assert.equal(readFileSync(join(root, ".gantry", "config.json"), "utf8"), configBefore);
    assert.equal(existsSync(join(home, ".npmrc")), false, "nothing planted in the home");
    assert.equal(existsSync(`/tmp/planted-${mark}`), false, "nothing planted in /tmp");
  });
});
