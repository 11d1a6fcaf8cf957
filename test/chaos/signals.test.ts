import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { agentCalls } from "../e2e/harness.js";
import { reapMarked, waitFor } from "./harness.js";
import { project, resumes, SIGNAL_CASES, send, start } from "./signals.harness.js";

/**
 * Ctrl-C and SIGTERM: the run stops within 5 s with exit 130, no process of the run is left, the story in
 * flight is paused with its work in the tree, `run:pause` is recorded and the on-pause hook runs; a second
 * signal forces an immediate stop; the next run picks the story up. Here each signal in one phase; the
 * other two pairs (SIGTERM in a session, SIGINT in a test run) are in signals.full.test.ts.
 */
describe("Ctrl-C and SIGTERM", { concurrency: 3 }, () => {
  it("SIGINT during an agent session: exit 130 within 5 s, nothing left running, story paused, hook ran; resume finishes", () =>
    SIGNAL_CASES.agentSession("SIGINT"));

  it("SIGTERM during a test run: exit 130 within 5 s, the test processes are gone, story paused; resume finishes", () =>
    SIGNAL_CASES.testRun("SIGTERM"));

  it("a second Ctrl-C forces an immediate stop while the first is still stopping; resume finishes", async (t) => {
    // The agent shrugs off SIGTERM (gantry then waits its grace period) and a slow on-pause hook holds the
    // graceful stop open: the second Ctrl-C must not wait for either.
    const { root } = project({ agentIgnoresTerm: true, slowHook: true });
    const { marker, running } = start(root);
    await waitFor("the agent session", () => agentCalls(root).some((c) => c.story === "US-1"));
    await waitFor("the agent's work", () => existsSync(join(root, "src/alpha.js")));
    send(running, "SIGINT");
    await new Promise((r) => setTimeout(r, 300));
    const second = Date.now();
    send(running, "SIGINT");
    const result = await running.done;
    const took = Date.now() - second;
    const left = await reapMarked(marker, 500);
    assert.equal(result.code, 130, result.stderr);
    assert.ok(took < 1_000, `stopped ${took} ms after the second Ctrl-C`);
    assert.match(result.stderr, /press Ctrl-C again to force/);
    await t.test("and leaves no process of the run behind", () => {
      assert.deepEqual(
        left.map((p) => p.cmdline),
        [],
      );
    });
    await resumes(root);
  });
});
