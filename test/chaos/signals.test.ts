import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { agentCalls, gantry, prdStories } from "../e2e/harness.js";
import {
  chaosConfig,
  chaosProject,
  killGroup,
  markedProcesses,
  moduleWithTest,
  type Running,
  readJsonlStrict,
  reapMarked,
  runDirsOf,
  startGantry,
  waitFor,
} from "./harness.js";

/**
 * Ctrl-C and SIGTERM: the run stops within 5 s with exit 130, no process of the run is left, the story in
 * flight is paused with its work in the tree, `run:pause` is recorded and the on-pause hook runs; a second
 * signal forces an immediate stop; the next run picks the story up.
 */

function project(opts: { slowTests?: boolean; agentIgnoresTerm?: boolean; slowHook?: boolean } = {}) {
  const hookDir = mkdtempSync(join(tmpdir(), "gantry-hook-"));
  const hookLog = join(hookDir, "on-pause.log");
  const config = chaosConfig();
  const onPause = `echo paused >> ${JSON.stringify(hookLog)}`;
  config.hooks = {
    "on-pause": opts.slowHook ? [onPause, { command: "sleep 60", timeoutMs: 120_000 }] : onPause,
  };
  // With slowTests the test runner sleeps (CHAOS_SLOW_TESTS, set for the interrupted run only).
  const work = moduleWithTest("alpha", 2);
  const first = opts.slowTests
    ? { write: work }
    : { write: work, sleepMs: 60_000, ...(opts.agentIgnoresTerm ? { ignoreTerm: true } : {}) };
  const root = chaosProject({
    plan: { "US-1": [first, { write: work }], "US-2": [{ write: moduleWithTest("beta", 2) }] },
    config,
  });
  return { root, hookLog };
}

function start(root: string, env: Record<string, string> = {}) {
  const marker = `sig-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const running = startGantry(root, ["run", "--feature", "f"], {
    env: { GANTRY_CHAOS_MARKER: marker, ...env },
  });
  return { marker, running };
}

/** Signals the way a user does: Ctrl-C reaches the terminal's foreground group, `kill` only the pid. */
function send(running: Running, signal: NodeJS.Signals): void {
  if (signal === "SIGINT") killGroup(running.child.pid, signal);
  else running.child.kill(signal);
}

async function stopsCleanly(
  root: string,
  hookLog: string,
  marker: string,
  running: Running,
  signal: NodeJS.Signals,
): Promise<void> {
  const sent = Date.now();
  send(running, signal);
  const result = await running.done;
  const took = Date.now() - sent;
  const left = markedProcesses(marker);
  await reapMarked(marker);
  assert.equal(result.code, 130, result.stderr + result.stdout);
  assert.ok(took < 5_000, `stopped ${took} ms after ${signal}`);
  assert.deepEqual(
    left.map((p) => p.cmdline),
    [],
    "no process of the run outlives it",
  );
  assert.equal(prdStories(root)["US-1"]?.status, "paused");
  assert.match(readFileSync(join(root, "src/alpha.js"), "utf8"), /return 2/, "the session's work is kept");
  const dir = runDirsOf(root).at(-1) as string;
  const events = readJsonlStrict(join(dir, "events.jsonl")).rows;
  assert.ok(
    events.some((e) => e.type === "run:pause"),
    "run:pause is recorded",
  );
  assert.equal(readFileSync(hookLog, "utf8"), "paused\n", "the on-pause hook ran once");
}

async function resumes(root: string): Promise<void> {
  const resumed = await gantry(root, ["run", "--feature", "f"]);
  assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
  assert.deepEqual(
    Object.values(prdStories(root)).map((s) => s.status),
    ["passed", "passed"],
  );
}

describe("Ctrl-C and SIGTERM", { concurrency: 3 }, () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} during an agent session: exit 130 within 5 s, nothing left running, story paused, hook ran; resume finishes`, async () => {
      const { root, hookLog } = project();
      const { marker, running } = start(root);
      await waitFor("the agent session", () =>
        markedProcesses(marker).some((p) => p.cmdline.includes("quick-agent.sh")),
      );
      await waitFor("the agent's work", () => existsSync(join(root, "src/alpha.js")));
      await stopsCleanly(root, hookLog, marker, running, signal);
      await resumes(root);
    });

    it(`${signal} during a test run: exit 130 within 5 s, the test processes are gone, story paused; resume finishes`, async () => {
      const { root, hookLog } = project({ slowTests: true });
      const { marker, running } = start(root, { CHAOS_SLOW_TESTS: "1" });
      await waitFor("the test run", () =>
        markedProcesses(marker).some((p) => p.cmdline.includes("check.sh")),
      );
      await stopsCleanly(root, hookLog, marker, running, signal);
      await resumes(root);
    });
  }

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
