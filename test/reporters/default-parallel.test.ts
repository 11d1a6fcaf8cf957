import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import defaultReporter from "../../src/reporters/default.js";
import { wireReporters } from "../../src/subscribers/reporters.js";
import { silentLogger } from "../../src/util/logger.js";
import { type Capture, capture, context, freshDir, RUN_ID, sampleBus } from "./sample-run.js";

const ESC = "\u001b";
const plain = (text: string) => text.replace(new RegExp(`${ESC}\\[[\\d;]*[A-Za-z]|\\r`, "g"), "");

describe("default reporter, stories at once (--parallel)", () => {
  it("the live view shows every story in flight, each with its own stage, and a story's merge as a line", async () => {
    const runDir = join(freshDir("root"), ".gantry", "runs", RUN_ID);
    const ctx = context(runDir, { stdout: capture(true) });
    const { bus, faults, dispose } = sampleBus(freshDir());
    const off = wireReporters(bus, [{ name: "default", reporter: defaultReporter({}, ctx) }], {
      logger: silentLogger,
      warn: () => {},
    });
    const story = (id: string) => ({ id, title: `Story ${id}`, status: "in-progress" as const, attempts: 1 });
    bus.emit("run:start", { feature: "f", totalStories: 3 });
    bus.emit("story:start", { story: story("A"), tier: "fast" });
    bus.emit("story:start", { story: story("B"), tier: "balanced" });
    bus.emit("stage:enter", { storyId: "A", stage: "execution" });
    bus.emit("stage:enter", { storyId: "B", stage: "verify" });
    await bus.flush();
    // The last frame drawn (after the last erase) while both ran: one live line each, its own stage and tier.
    const frame = plain((ctx.stdout as Capture).text.split(`${ESC}[J`).at(-1) ?? "").split("\n");
    assert.equal(frame.length, 4, frame.join("\n"));
    assert.match(frame[0] ?? "", /A execution · .* · tier fast.* {2}Story A$/);
    assert.match(frame[1] ?? "", /B verify · .* · tier balanced.* {2}Story B$/);
    assert.match(frame[2] ?? "", /0\/3 stories/);
    // B passed in its worktree: not passed until its merge is made.
    const metrics = { durationMs: 1000, costUsd: 0, attempts: 1, tier: "balanced", agentCalls: 1 };
    bus.emit("story:complete", { story: { ...story("B"), status: "passed" }, metrics, inWorktree: true });
    await bus.flush();
    const beforeMerge = plain((ctx.stdout as Capture).text);
    assert.match(beforeMerge, /^ {2}B passed in its worktree; merging it into the feature branch$/m);
    assert.doesNotMatch(beforeMerge, /✓ B|1 passed/);
    bus.emit("story:merge", { storyId: "B", outcome: "merged", sha: "c".repeat(40), tree: "d".repeat(40) });
    bus.emit("story:merge", {
      storyId: "A",
      outcome: "conflict",
      files: ["src/x.js"],
      reason: "conflict in src/x.js",
    });
    await bus.flush();
    off();
    dispose();
    assert.deepEqual(faults, []);
    const text = plain((ctx.stdout as Capture).text);
    assert.match(text, /✓ B Story B .*\n {2}⤷ merged into the feature branch \(cccccccccccc\)\n/);
    assert.match(text, /1\/3 stories · 1 passed/);
    assert.match(text, /A did not merge: conflict in src\/x\.js/);
  });
});
