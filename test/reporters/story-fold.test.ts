import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventOf } from "../../src/model/events.js";
import { RunModel } from "../../src/reporters/run-model.js";
import { StoryFold, type StoryProgress } from "../../src/reporters/story-fold.js";
import type { EventArgs } from "../../src/reporters/types.js";

const meta = { runId: "r1", at: "2026-03-04T05:06:07.000Z" };
const story = (attempts: number, status: "in-progress" | "failed" = "in-progress") => ({
  id: "US-1",
  title: "t",
  status,
  attempts,
});
/** A story resumed after two passes of an earlier run, routed twice here (a tier change), then failed. */
const events: EventArgs[] = [
  ["story:start", { ...meta, story: story(2), tier: "fast" }],
  ["stage:enter", { ...meta, storyId: "US-1", stage: "routing" }],
  ["stage:enter", { ...meta, storyId: "US-1", stage: "verify" }],
  [
    "escalation:tier-change",
    { ...meta, storyId: "US-1", from: "fast", to: "balanced" } as EventOf<"escalation:tier-change">,
  ],
  ["stage:enter", { ...meta, storyId: "US-1", stage: "routing" }],
  ["story:fail", { ...meta, story: story(4, "failed"), reason: "verify: 1 test failing" }],
];

describe("the story fold", () => {
  it("counts the pass in flight from its start, one more at each later routing; the end says the count", () => {
    const fold = new StoryFold();
    const progress: StoryProgress = { status: "pending", attempts: 0 };
    const seen = events.map((args) => {
      fold.apply(progress, ...args);
      return [progress.status, progress.attempts, progress.tier, progress.stage];
    });
    assert.deepEqual(seen, [
      ["in-progress", 3, "fast", undefined],
      ["in-progress", 3, "fast", "routing"],
      ["in-progress", 3, "fast", "verify"],
      ["in-progress", 3, "balanced", "verify"],
      ["in-progress", 4, "balanced", "routing"],
      ["failed", 4, "balanced", undefined],
    ]);
    assert.equal(progress.reason, "verify: 1 test failing");
  });

  it("is the run model's count too", () => {
    const model = new RunModel();
    for (const args of events.slice(0, 5)) model.apply(...args);
    assert.equal(model.stories.get("US-1")?.attempts, 4);
  });
});
