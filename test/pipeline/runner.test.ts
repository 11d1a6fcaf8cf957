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

describe("stage runner: what subscribers and stages are told", () => {
  it("tells each stage how many retries are left in the pass", async () => {
    const { bus } = recordingBus();
    const seen: (number | undefined)[] = [];
    const ctxSeen = { story: { id: "US-1" } } as unknown as StoryContext;
    const recording = (name: StageName, result: StageResult): Stage => ({
      name,
      enabled: () => true,
      async execute(c) {
        seen.push(c.retriesLeft);
        return result;
      },
    });
    await runStages(
      [
        recording("verify", { action: "continue" }),
        recording("rectify", { action: "retry", fromStage: "verify", reason: "again" }),
      ],
      ctxSeen,
      { bus, maxStageRetries: 2 },
    );
    assert.deepEqual(seen, [2, 2, 1, 1, 0, 0]);
  });

  it("names on stage:exit the stage that runs next after a continue: the next enabled one, none after the last", async () => {
    const calls: string[] = [];
    const { bus } = recordingBus();
    const exits: [string, string | undefined][] = [];
    bus.on("stage:exit", "rec", (e) => {
      exits.push([`${e.stage} ${e.result.action}`, e.next]);
    });
    // rectify is enabled only while verify has left a failure: after the first verify, not after the second.
    let failing = true;
    const verify: Stage = {
      name: "verify",
      enabled: () => true,
      execute: async () => ({ action: "continue" }),
    };
    const rectify: Stage = {
      name: "rectify",
      enabled: () => failing,
      execute: async () => {
        failing = false;
        return { action: "retry", fromStage: "verify", reason: "fixed" };
      },
    };
    await runStages([verify, rectify, stage("review", [{ action: "continue" }], calls)], ctx, {
      bus,
      maxStageRetries: 5,
    });
    await bus.flush();
    assert.deepEqual(exits, [
      ["verify continue", "rectify"],
      ["rectify retry", undefined],
      ["verify continue", "review"],
      ["review continue", undefined],
    ]);
  });

  it("names the story and stage on stage:enter, and times the stage on stage:exit", async () => {
    const { bus } = recordingBus();
    const entered: unknown[] = [];
    const durations: number[] = [];
    bus.on("stage:enter", "rec", (e) => {
      entered.push({ storyId: e.storyId, stage: e.stage });
    });
    bus.on("stage:exit", "rec", (e) => {
      durations.push(e.durationMs);
    });
    const slow: Stage = {
      name: "execution",
      enabled: () => true,
      execute: () => new Promise((done) => setTimeout(() => done({ action: "continue" }), 40)),
    };
    const before = performance.now();
    await runStages([slow], ctx, { bus, maxStageRetries: 1 });
    const elapsed = performance.now() - before;
    await bus.flush();
    assert.deepEqual(entered, [{ storyId: "US-1", stage: "execution" }]);
    assert.equal(durations.length, 1);
    assert.ok((durations[0] as number) >= 30, `stage took ~40 ms, reported ${durations[0]}`);
    assert.ok((durations[0] as number) <= Math.ceil(elapsed), `reported ${durations[0]} of ${elapsed} ms`);
  });

  it("marks retryLimit on stage:exit only for a retry past the limit or a stage's own limit", async () => {
    const { bus } = recordingBus();
    const marks: [string, unknown][] = [];
    bus.on("stage:exit", "rec", (e) => {
      marks.push([e.stage, e.retryLimit]);
    });
    const calls: string[] = [];
    // With no retries allowed, a stage that passes or fails for its own reason is not at a retry limit.
    const plainFail = await runStages(
      [
        stage("verify", [{ action: "continue" }], calls),
        stage("review", [{ action: "fail", reason: "review found a bug" }], calls),
      ],
      ctx,
      { bus, maxStageRetries: 0 },
    );
    assert.deepEqual(plainFail, { action: "fail", reason: "review found a bug", retries: 0 });
    const ownLimit = await runStages(
      [stage("autofix", [{ action: "fail", reason: "gave up", retryLimit: true }], calls)],
      ctx,
      { bus, maxStageRetries: 4 },
    );
    assert.equal(ownLimit.action === "fail" && ownLimit.retryLimit, true);
    await bus.flush();
    assert.deepEqual(marks, [
      ["verify", undefined],
      ["review", undefined],
      ["autofix", { max: 4 }],
    ]);
  });

  it("retries from the named stage, not from the start", async () => {
    const { bus } = recordingBus();
    const calls: string[] = [];
    const out = await runStages(
      [
        stage("execution", [{ action: "continue" }], calls),
        stage("verify", [{ action: "continue" }], calls),
        stage(
          "rectify",
          [{ action: "retry", fromStage: "verify", reason: "tests failed" }, { action: "continue" }],
          calls,
        ),
      ],
      ctx,
      { bus, maxStageRetries: 2 },
    );
    assert.deepEqual(out, { action: "continue", retries: 1 });
    assert.deepEqual(calls, ["execution", "verify", "rectify", "verify", "rectify"]);
  });

  it("fails a retry from a stage that is not in the pass", async () => {
    const { bus } = recordingBus();
    const calls: string[] = [];
    const out = await runStages(
      [
        stage("execution", [{ action: "continue" }], calls),
        stage("rectify", [{ action: "retry", fromStage: "review", reason: "again" }], calls),
      ],
      ctx,
      { bus, maxStageRetries: 3 },
    );
    assert.deepEqual(out, {
      action: "fail",
      reason: 'rectify asked to retry from unknown stage "review"',
      retries: 1,
    });
    assert.deepEqual(calls, ["execution", "rectify"]);
  });

  it("gives the interruption as the reason for the pause", async () => {
    const { bus } = recordingBus();
    const controller = new AbortController();
    controller.abort();
    const out = await runStages([stage("execution", [{ action: "continue" }], [])], ctx, {
      bus,
      maxStageRetries: 1,
      signal: controller.signal,
    });
    assert.deepEqual(out, { action: "pause", reason: "interrupted", retries: 0 });
  });
});
