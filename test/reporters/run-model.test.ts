import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventPayloads } from "../../src/model/events.js";
import { RunModel } from "../../src/reporters/run-model.js";
import { passesThisRun } from "../../src/reporters/story-fold.js";
import type { EventArgs } from "../../src/reporters/types.js";
import { emitSampleRun, freshDir, sampleBus } from "./sample-run.js";

function feed(model: RunModel) {
  let n = 0;
  return <K extends keyof EventPayloads>(type: K, payload: EventPayloads[K]) =>
    model.apply(
      ...([
        type,
        { ...payload, runId: "r", at: new Date(Date.UTC(2026, 0, 1, 0, 0, n++)).toISOString() },
      ] as EventArgs),
    );
}

const judged = { sha: "s", tree: "t" };
const verifyResult = (failing: number) => ({
  storyId: "US-1",
  strategy: "scoped" as const,
  status: failing ? ("TEST_FAILURE" as const) : ("PASS" as const),
  success: !failing,
  runner: "vitest",
  passCount: 1,
  failCount: failing,
  skipCount: 0,
  totalCount: 1 + failing,
  failures: Array.from({ length: failing }, (_, i) => ({ name: `t${i}`, message: "boom" })),
  command: "vitest",
  exitCode: failing ? 1 : 0,
  durationMs: 700 + failing,
  rawOutputTail: "",
  judged,
  attempt: 1,
});
const verdict = (v: "pass" | "fail") => ({
  v: 1 as const,
  runId: "r",
  feature: "f",
  storyId: "US-1",
  gate: "verify",
  verdict: v,
  sha: "s",
  tree: "t",
  at: "",
  attempt: 1,
  detail: {},
});

describe("run model", () => {
  it("counts a resumed story's passes in this run, beside its pass number across runs", () => {
    const model = new RunModel();
    const at = "2026-01-01T00:00:00.000Z";
    const story = { id: "US-1", title: "one", status: "in-progress" as const, attempts: 4 };
    const apply = (...args: EventArgs) => model.apply(...args);
    apply("story:start", { runId: "r", at, story, tier: "fast" } as never);
    const record = model.stories.get("US-1");
    assert.deepEqual([record?.attempts, record && passesThisRun(record)], [5, 1]);
    apply("stage:enter", { runId: "r", at, storyId: "US-1", stage: "routing" } as never);
    apply("stage:enter", { runId: "r", at, storyId: "US-1", stage: "routing" } as never);
    assert.deepEqual([record?.attempts, record && passesThisRun(record)], [6, 2]);
    apply("story:complete", {
      runId: "r",
      at,
      story: { ...story, status: "passed", attempts: 6 },
      metrics: { durationMs: 1, costUsd: 0, attempts: 6, tier: "fast", agentCalls: 2 },
    } as never);
    assert.deepEqual(
      [record?.attempts, record && passesThisRun(record)],
      [6, 2],
      "not 6 passes: 4 were earlier runs'",
    );
  });

  it("builds each story's record from the sample run", () => {
    const model = new RunModel();
    const { bus, dispose } = sampleBus(freshDir());
    bus.onAny("model", (type, event) => model.apply(...([type, event] as EventArgs)));
    emitSampleRun(bus);
    dispose();
    const [one, two, three] = model.list();
    assert.deepEqual(
      [one, two, three].map((s) => [
        s?.id,
        s?.status,
        s?.attempts,
        s?.tier,
        s?.costUsd.toFixed(2),
        s?.verdicts.length,
      ]),
      [
        ["US-001", "passed", 1, "fast", "0.12", 2],
        ["US-002", "failed", 2, "balanced", "0.21", 4],
        ["US-003", "blocked", 0, undefined, "0.00", 0],
      ],
    );
    assert.deepEqual(two?.stages.map((s) => `${s.pass}:${s.tier}:${s.stage}:${s.action}`).slice(5, 7), [
      "1:fast:rectify:escalate",
      "2:balanced:routing:continue",
    ]);
    assert.equal(two?.verdicts[1]?.evidence.length, 1, "each verdict got the failures of its own result");
    assert.equal(model.costUsd.toFixed(2), "0.33");
  });

  it("pairs verdicts with results in order, whichever arrives first", () => {
    const model = new RunModel();
    const emit = feed(model);
    emit("story:start", { story: { id: "US-1", title: "t", status: "pending", attempts: 0 }, tier: "fast" });
    emit("verify:result", verifyResult(2));
    emit("gate:verdict", verdict("fail"));
    emit("gate:verdict", verdict("pass"));
    emit("verify:result", verifyResult(0));
    const [first, second] = model.stories.get("US-1")?.verdicts ?? [];
    assert.deepEqual(first?.evidence, ["t0: boom", "t1: boom"]);
    assert.equal(first?.durationMs, 702);
    assert.deepEqual(second?.evidence, []);
    assert.equal(second?.durationMs, 700);
  });

  it("lists every review-panel finding of a decision with its basis, those kept as raised too", () => {
    const model = new RunModel();
    const emit = feed(model);
    const f = { file: "src/a.ts", line: 3, text: "off by one" };
    emit("story:start", { story: { id: "US-1", title: "t", status: "pending", attempts: 0 }, tier: "fast" });
    emit("review-decision:result", {
      storyId: "US-1",
      verdict: "fail",
      reason: "1 blocking finding stands",
      blockers: [
        {
          ...f,
          reviewer: "a",
          reviewers: ["a", "b"],
          severity: "blocking",
          raisedAs: "blocking",
          basis: "corroborated",
        },
      ],
      lowered: [
        {
          ...f,
          line: 9,
          reviewer: "b",
          severity: "important",
          raisedAs: "blocking",
          loweredBecause: "raised by 1 reviewer (b), two needed; no failing test",
        },
      ],
      others: [
        { ...f, line: 0, reviewer: "a", severity: "suggestion", raisedAs: "suggestion", text: "rename" },
      ],
      reviewers: [],
      judged,
      attempt: 1,
    });
    emit("gate:verdict", { ...verdict("fail"), gate: "review-decision" });
    assert.deepEqual(model.stories.get("US-1")?.verdicts[0]?.evidence, [
      "blocking src/a.ts:3: off by one — raised by a and b",
      "lowered src/a.ts:9 (b): off by one — raised by 1 reviewer (b), two needed; no failing test",
      "suggestion src/a.ts (a): rename — raised as suggestion; kept as raised",
    ]);
  });

  it("marks the story in flight paused when the run pauses", () => {
    const model = new RunModel();
    const emit = feed(model);
    emit("story:start", { story: { id: "US-1", title: "t", status: "pending", attempts: 0 }, tier: "fast" });
    emit("stage:enter", { storyId: "US-1", stage: "execution" });
    emit("run:pause", { reason: "cost limit" });
    assert.equal(model.stories.get("US-1")?.status, "paused");
    assert.equal(model.counts().paused, 1);
    assert.equal(model.pauseReason, "cost limit");
  });
});
