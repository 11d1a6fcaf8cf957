import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import type { EventName } from "../../src/model/events.js";
import type { StageName, StageResult } from "../../src/model/stage.js";
import { runStages } from "../../src/pipeline/runner.js";
import type { StoryContext } from "../../src/stages/context.js";
import type { Stage } from "../../src/stages/stage.js";

const ctx = { story: { id: "US-1" } } as unknown as StoryContext;

function stage(
  name: StageName,
  results: StageResult[] | (() => Promise<StageResult>),
  calls: string[],
): Stage {
  let i = 0;
  return {
    name,
    enabled: () => true,
    async execute() {
      calls.push(name);
      if (typeof results === "function") return results();
      return results[Math.min(i++, results.length - 1)] as StageResult;
    },
  };
}

function recordingBus() {
  const bus = createEventBus({ runId: "r" });
  const events: EventName[] = [];
  bus.onAny("rec", (type) => {
    events.push(type);
  });
  return { bus, events };
}

describe("stage runner", () => {
  it("runs enabled stages in order and reports continue", async () => {
    const calls: string[] = [];
    const { bus, events } = recordingBus();
    const skipped: Stage = {
      name: "rectify",
      enabled: () => false,
      execute: async () => ({ action: "fail", reason: "x" }),
    };
    const out = await runStages(
      [
        stage("routing", [{ action: "continue" }], calls),
        skipped,
        stage("completion", [{ action: "continue" }], calls),
      ],
      ctx,
      {
        bus,
        maxStageRetries: 5,
      },
    );
    assert.equal(out.action, "continue");
    assert.deepEqual(calls, ["routing", "completion"]);
    assert.deepEqual(events, ["stage:enter", "stage:exit", "stage:enter", "stage:exit"]);
  });

  it("jumps back on retry and fails past MAX_STAGE_RETRIES, counting retries together", async () => {
    const calls: string[] = [];
    const { bus } = recordingBus();
    const limits: (number | undefined)[] = [];
    bus.on("stage:exit", "rec", (e) => {
      if (e.stage === "rectify") limits.push(e.retryLimit?.max);
    });
    const out = await runStages(
      [
        stage("verify", [{ action: "continue" }], calls),
        stage("rectify", [{ action: "retry", fromStage: "verify", reason: "again" }], calls),
      ],
      ctx,
      { bus, maxStageRetries: 3 },
    );
    assert.equal(out.action, "fail");
    assert.match((out as { reason: string }).reason, /MAX_STAGE_RETRIES \(3\) exceeded/);
    assert.equal(out.action === "fail" && out.retryLimit, true);
    assert.equal(out.retries, 4);
    await bus.flush();
    assert.deepEqual(limits, [undefined, undefined, undefined, 3], "only the retry past the limit is marked");
    assert.deepEqual(calls, [
      "verify",
      "rectify",
      "verify",
      "rectify",
      "verify",
      "rectify",
      "verify",
      "rectify",
    ]);
  });

  it("turns a thrown error into fail, and stops at escalate, skip and pause", async () => {
    const { bus } = recordingBus();
    const thrown = await runStages(
      [stage("review", async () => Promise.reject(new Error("kaput")), [])],
      ctx,
      { bus, maxStageRetries: 1 },
    );
    assert.deepEqual(thrown, { action: "fail", reason: "review stage threw: kaput", retries: 0 });
    const noneLeft = await runStages(
      [stage("autofix", [{ action: "fail", reason: "no retry left", retryLimit: true }], [])],
      ctx,
      { bus, maxStageRetries: 0 },
    );
    assert.equal(
      noneLeft.action === "fail" && noneLeft.retryLimit,
      true,
      "a stage's own retry limit is kept",
    );
    for (const action of ["escalate", "skip", "pause"] as const) {
      const calls: string[] = [];
      const out = await runStages(
        [
          stage("execution", [{ action, reason: action }], calls),
          stage("completion", [{ action: "continue" }], calls),
        ],
        ctx,
        { bus, maxStageRetries: 1 },
      );
      assert.equal(out.action, action);
      assert.deepEqual(calls, ["execution"]);
    }
  });

  it("stops with pause when the run is interrupted between stages", async () => {
    const { bus } = recordingBus();
    const controller = new AbortController();
    const calls: string[] = [];
    const out = await runStages(
      [
        stage(
          "execution",
          async () => {
            controller.abort();
            return { action: "continue" };
          },
          calls,
        ),
        stage("verify", [{ action: "continue" }], calls),
      ],
      ctx,
      { bus, maxStageRetries: 1, signal: controller.signal },
    );
    assert.equal(out.action, "pause");
    assert.deepEqual(calls, ["execution"]);
  });
});
