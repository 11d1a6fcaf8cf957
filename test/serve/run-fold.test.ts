import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { LoggedEvent } from "../../src/serve/events-tail.js";
import { RunFold } from "../../src/serve/run-fold.js";

const AT = "2026-01-01T00:00:00.000Z";
const story = (id: string) => ({ id, title: `story ${id}`, status: "in-progress", attempts: 0 });
const event = (type: string, fields: Record<string, unknown> = {}): LoggedEvent => ({
  type,
  at: AT,
  ...fields,
});

describe("RunFold", () => {
  it("folds a run's events into its stories, cost, open questions and status", () => {
    const run = new RunFold();
    run.fold([
      event("run:start", { feature: "f", totalStories: 2 }),
      event("story:start", { story: story("US-1"), tier: "fast" }),
      event("agent:end", { storyId: "US-1", costUsd: 0.25, costBasis: "estimated" }),
      event("interaction:request", {
        id: "q1",
        trigger: "review-gate",
        storyId: "US-1",
        summary: "review failed",
        options: ["approve"],
        timeoutMs: 60_000,
        fallback: "approve",
      }),
      event("story:complete", { story: { ...story("US-1"), status: "passed" }, metrics: {} }),
    ]);
    assert.equal(run.status, "running");
    assert.equal(run.feature, "f");
    assert.equal(run.totalStories, 2);
    assert.equal(run.costUsd, 0.25);
    assert.equal(run.current, undefined, "no story is current once it completed");
    assert.equal(run.stories.get("US-1")?.status, "passed");
    assert.equal(run.requests.get("q1")?.expiresAt, "2026-01-01T00:01:00.000Z");

    const summary = { passed: 1, failed: 0, skipped: 0, blocked: 0, paused: 0, durationMs: 5, costUsd: 0.25 };
    run.fold([event("run:complete", { summary: { ...summary, costBasis: "estimated" }, exitCode: 0 })]);
    assert.deepEqual([run.status, run.ended, run.requests.size], ["complete", true, 0]);
  });

  it("skips a line that is not the event its type names, and counts no change for an event the page does not show", () => {
    const run = new RunFold();
    run.fold([event("story:start", { story: story("US-1"), tier: "fast" })]);
    const before = run.version;
    run.fold([event("story:start", { tier: "fast" }), event("agent:start", { storyId: "US-1" })]);
    assert.equal(run.stories.size, 1, "the malformed story:start added nothing");
    run.fold([event("agent:start", { storyId: "US-1" })]);
    assert.equal(run.version, before + 1, "only the malformed line moved the version, not agent:start");
  });
});
