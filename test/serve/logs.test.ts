import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { logsCommand } from "../../src/cli/logs.js";
import { fakeRun, RUN_ID } from "./fake-run.js";

/** Runs `gantry logs` in this process and returns what it wrote on stdout. */
async function logs(options: Parameters<typeof logsCommand>[0]): Promise<string> {
  const write = process.stdout.write.bind(process.stdout);
  const quiet = process.stderr.write.bind(process.stderr);
  let out = "";
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    assert.equal(await logsCommand(options), 0);
  } finally {
    process.stdout.write = write;
    process.stderr.write = quiet;
  }
  return out;
}

describe("gantry logs", () => {
  it("prints a run's progress lines and questions from its files; --json the events; -f picks the feature", async () => {
    const run = fakeRun();
    const lines = await logs({ dir: run.root });
    assert.match(lines, /^\[\d\d:\d\d:\d\d\] run 20260101-120000-abcd: feature f, 2 stories$/m);
    assert.match(lines, /^\[\d\d:\d\d:\d\d\] US-1 start — First \(tier fast\)$/m);
    assert.match(lines, /asks \(review-gate, US-1\): review failed \[approve, skip, abort\]$/m);
    const events = (await logs({ dir: run.root, json: true, run: RUN_ID })).trim().split("\n");
    assert.deepEqual(
      events.map((line) => JSON.parse(line).type),
      ["run:start", "story:start", "stage:enter", "agent:end", "gate:verdict", "interaction:request"],
    );
    assert.match(
      await logs({ dir: run.root, feature: "other" }),
      /no runs under \.gantry\/runs\/ for feature other yet/,
    );
    await assert.rejects(
      logsCommand({ dir: run.root, run: "../etc" }),
      /no run "\.\.\/etc" under \.gantry\/runs\/ \(newest: 20260101-120000-abcd\)/,
    );
    await assert.rejects(
      logsCommand({ dir: run.root, run: RUN_ID, feature: "other" }),
      /is of feature f, not other/,
    );
  });

  it("--follow reads what a live run appends and stops at the event that ends it", async () => {
    const run = fakeRun();
    setTimeout(
      () =>
        run.append({
          type: "story:fail",
          story: { id: "US-1", title: "First", status: "failed", attempts: 1 },
          reason: "boom",
        }),
      100,
    );
    setTimeout(() => run.append({ type: "run:pause", reason: "asked to" }), 200);
    const started = Date.now();
    const lines = await logs({ dir: run.root, follow: true, pollMs: 20 });
    assert.ok(Date.now() - started < 5_000);
    assert.match(lines, /US-1 FAILED: boom\n.*run paused: asked to\n$/);
  });
});
