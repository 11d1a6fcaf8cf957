import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { type ConfigInput, ConfigSchema, type InteractionAction } from "../../src/config/schema.js";
import type { EventOf } from "../../src/model/events.js";
import { wireInteraction } from "../../src/subscribers/interaction.js";
import { silentLogger } from "../../src/util/logger.js";

function wired(config: ConfigInput) {
  const bus = createEventBus({ runId: "run-1" });
  const decisions: [string | undefined, string, InteractionAction][] = [];
  const requests: EventOf<"interaction:request">[] = [];
  bus.on("interaction:request", "test", (e) => {
    requests.push(e);
  });
  wireInteraction(bus, {
    config: ConfigSchema.parse(config),
    control: {
      vetoStory: () => {},
      requestPause: () => {},
      decide: (storyId, trigger, action) => decisions.push([storyId, trigger, action]),
      raiseCostLimit: (usd) => usd,
      signal: new AbortController().signal,
    },
    runDir: mkdtempSync(join(tmpdir(), "gantry-triggers-")),
    feature: "f",
    stories: { get: () => undefined },
    logger: silentLogger,
    warn: () => {},
  });
  return { bus, decisions, requests };
}

const gap = { code: "no-acceptance-criteria" as const, severity: "blocker" as const, detail: "none given" };
const readiness = (over: Partial<EventOf<"readiness:result">>) => ({
  storyId: "US-1",
  verdict: "fail" as const,
  gaps: [gap],
  accepted: [],
  gapSet: ["no-acceptance-criteria"],
  judged: { sha: "a", tree: "b" },
  attempt: 0,
  ...over,
});

describe("the story-readiness and agent-blocked triggers", () => {
  it("story-readiness asks only when the gate says the gap set is new; fix is the fallback", async () => {
    const { bus, decisions, requests } = wired({ interaction: { triggers: { "story-readiness": {} } } });
    bus.emit("readiness:result", readiness({}));
    bus.emit("readiness:result", readiness({ storyId: "US-2", ask: true }));
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.storyId, r.options, r.fallback, r.summary]),
      [
        [
          "US-2",
          ["fix", "continue", "skip", "abort"],
          "fix",
          "US-2 is not ready (no-acceptance-criteria): no-acceptance-criteria: none given",
        ],
      ],
    );
    assert.deepEqual(decisions, [["US-2", "story-readiness", "fix"]]);
  });

  it("agent-blocked asks on a pass the agent ended with STORY BLOCKED, with its reason; approve is the fallback", async () => {
    const { bus, decisions, requests } = wired({ interaction: { triggers: { "agent-blocked": {} } } });
    bus.emit("stage:exit", {
      storyId: "US-1",
      stage: "execution",
      result: { action: "fail", reason: "x" },
      durationMs: 1,
    });
    bus.emit("stage:exit", {
      storyId: "US-2",
      stage: "execution",
      result: { action: "fail", reason: "the agent reported STORY BLOCKED: no key", agentBlocked: "no key" },
      durationMs: 1,
    });
    await bus.flush();
    assert.deepEqual(
      requests.map((r) => [r.storyId, r.options, r.fallback, r.summary]),
      [["US-2", ["approve", "retry", "skip", "abort"], "approve", "US-2: the agent is blocked: no key"]],
    );
    assert.deepEqual(decisions, [["US-2", "agent-blocked", "approve"]]);
  });
});
