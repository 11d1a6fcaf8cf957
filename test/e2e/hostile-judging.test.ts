import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { sandboxSupport } from "../../src/process/sandbox.js";
import { reapMarked } from "../chaos/harness.js";
import { baseConfig, gantry, git, lastRun, makeProject, prdStories, story } from "./harness.js";
import { hostileNodeTest, TOTAL } from "./hostile-node-test.js";

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
      plan: { "US-1": [{ write: { "src/total.js": TOTAL, "test/total.test.js": hostileNodeTest(mark) } }] },
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
