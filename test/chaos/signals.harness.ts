import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gantry, prdStories } from "../e2e/harness.js";
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

/** A run stopped by Ctrl-C or SIGTERM, what must hold after it, and the run that resumes it. */

export function project(opts: { slowTests?: boolean; agentIgnoresTerm?: boolean; slowHook?: boolean } = {}) {
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

export function start(root: string, env: Record<string, string> = {}) {
  const marker = `sig-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const running = startGantry(root, ["run", "--feature", "f"], {
    env: { GANTRY_CHAOS_MARKER: marker, ...env },
  });
  return { marker, running };
}

/** Signals the way a user does: Ctrl-C reaches the terminal's foreground group, `kill` only the pid. */
export function send(running: Running, signal: NodeJS.Signals): void {
  if (signal === "SIGINT") killGroup(running.child.pid, signal);
  else running.child.kill(signal);
}

export async function stopsCleanly(
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

export async function resumes(root: string): Promise<void> {
  const resumed = await gantry(root, ["run", "--feature", "f"]);
  assert.equal(resumed.code, 0, resumed.stderr + resumed.stdout);
  assert.deepEqual(
    Object.values(prdStories(root)).map((s) => s.status),
    ["passed", "passed"],
  );
}

/** A signal (to the group, as Ctrl-C sends it, or to the pid, as `kill` does) landing in each phase of a story. */
export const SIGNAL_CASES = {
  agentSession: async (signal: NodeJS.Signals) => {
    const { root, hookLog } = project();
    const { marker, running } = start(root);
    await waitFor("the agent session", () =>
      markedProcesses(marker).some((p) => p.cmdline.includes("quick-agent.sh")),
    );
    await waitFor("the agent's work", () => existsSync(join(root, "src/alpha.js")));
    await stopsCleanly(root, hookLog, marker, running, signal);
    await resumes(root);
  },
  testRun: async (signal: NodeJS.Signals) => {
    const { root, hookLog } = project({ slowTests: true });
    const { marker, running } = start(root, { CHAOS_SLOW_TESTS: "1" });
    await waitFor("the test run", () => markedProcesses(marker).some((p) => p.cmdline.includes("check.sh")));
    await stopsCleanly(root, hookLog, marker, running, signal);
    await resumes(root);
  },
};
