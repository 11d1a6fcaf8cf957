import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { EventName } from "../../src/model/events.js";
import type { NamedReporter, Reporter } from "../../src/reporters/types.js";
import { wireReporters } from "../../src/subscribers/reporters.js";
import type { Logger } from "../../src/util/logger.js";
import { emitSampleRun, freshDir, sampleBus } from "../reporters/sample-run.js";

function recorder() {
  const calls: string[] = [];
  const reporter: Reporter = {
    onRunStart: (e) => void calls.push(`onRunStart ${e.feature} ${e.totalStories}`),
    onStoryStart: (e) => void calls.push(`onStoryStart ${e.story.id} ${e.tier}`),
    onStageExit: (e) => void calls.push(`onStageExit ${e.storyId} ${e.stage} ${e.result.action}`),
    onStoryComplete: (e) => void calls.push(`onStoryComplete ${e.story.id} ${e.metrics.attempts}`),
    onStoryFail: (e) => void calls.push(`onStoryFail ${e.story.id}`),
    onStorySkip: (e) => void calls.push(`onStorySkip ${e.story.id} ${e.story.status}`),
    onRunEnd: (e) => void calls.push(`onRunEnd ${e.exitCode}`),
    onEvent: (type, _payload) => void calls.push(`onEvent ${type}`),
  };
  return { calls, reporter };
}

function harness(reporters: NamedReporter[], timeoutMs?: number) {
  const { bus, faults, dispose } = sampleBus(freshDir());
  const warnings: string[] = [];
  const logged: Record<string, unknown>[] = [];
  const logger: Logger = {
    debug() {},
    info() {},
    warn: (obj) => void logged.push(obj as Record<string, unknown>),
    error() {},
    child: () => logger,
  };
  const unwire = wireReporters(bus, reporters, {
    logger,
    warn: (l) => void warnings.push(l),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  });
  return {
    bus,
    faults,
    warnings,
    logged,
    dispose: () => {
      unwire();
      dispose();
    },
  };
}

describe("wireReporters", () => {
  it("maps events to methods, calling onEvent first and then the named method, in event order", async () => {
    const { calls, reporter } = recorder();
    const h = harness([{ name: "rec", reporter }]);
    emitSampleRun(h.bus);
    assert.deepEqual(await h.bus.flush(), []);
    h.dispose();
    assert.deepEqual(h.faults, []);
    const named = calls.filter((c) => !c.startsWith("onEvent"));
    assert.equal(named[0], "onRunStart checkout 3");
    assert.equal(named[1], "onStoryStart US-001 fast");
    assert.ok(named.includes("onStoryComplete US-001 1"));
    assert.ok(named.includes("onStoryFail US-002"));
    assert.ok(named.includes("onStorySkip US-003 blocked"));
    assert.equal(named.at(-1), "onRunEnd 1");
    assert.equal(named.filter((c) => c.startsWith("onStageExit")).length, 17);
    assert.ok(named.includes("onStageExit US-002 rectify retry"));
    // onEvent saw every event (gate:verdict included), each just before its named method.
    const types = calls.filter((c) => c.startsWith("onEvent")).map((c) => c.slice(8));
    assert.equal(types.filter((t) => t === "gate:verdict").length, 6);
    assert.equal(types[0], "run:start");
    assert.equal(types.at(-1), "run:complete");
    assert.deepEqual(calls.slice(-2), ["onEvent run:complete", "onRunEnd 1"]);
    const i = calls.indexOf("onStoryFail US-002");
    assert.equal(calls[i - 1], "onEvent story:fail");
  });

  it("runs one reporter's calls one after another even when they are async", async () => {
    const seen: string[] = [];
    let active = 0;
    let overlap = false;
    const slow: Reporter = {
      async onEvent(type, _payload) {
        active += 1;
        if (active > 1) overlap = true;
        await new Promise((r) => setTimeout(r, type === "story:start" ? 5 : 0));
        seen.push(type);
        active -= 1;
      },
    };
    const h = harness([{ name: "slow", reporter: slow }]);
    const emitted: EventName[] = [];
    h.bus.onAny("order", (type) => void emitted.push(type));
    emitSampleRun(h.bus);
    await h.bus.flush();
    h.dispose();
    assert.equal(overlap, false);
    assert.deepEqual(seen, emitted);
  });

  it("a throwing, a rejecting and a never-settling reporter do not stop the run or the others; each is reported by name", async () => {
    const good = recorder();
    const other = recorder();
    const thrower: Reporter = {
      onStoryStart() {
        throw new Error("sync boom");
      },
    };
    const rejecter: Reporter = {
      async onEvent(type, _payload) {
        if (type === "story:fail") throw new Error("async boom");
      },
      async onRunEnd() {
        throw new TypeError("cannot write report");
      },
    };
    const stuckCalls: string[] = [];
    const stuck: Reporter = {
      onEvent(type, _payload) {
        stuckCalls.push(type);
        if (type === "story:complete") return new Promise<void>(() => {});
      },
    };
    const h = harness(
      [
        { name: "thrower", reporter: thrower },
        { name: "good", reporter: good.reporter },
        { name: "rejecter", reporter: rejecter },
        { name: "stuck", reporter: stuck },
        { name: "other", reporter: other.reporter },
      ],
      100,
    );
    const started = Date.now();
    emitSampleRun(h.bus);
    assert.deepEqual(await h.bus.flush(), []);
    h.dispose();
    assert.ok(Date.now() - started < 1500, "the stuck reporter does not hold up flush past its timeout");

    assert.deepEqual(good.calls, other.calls);
    assert.equal(good.calls.at(-1), "onRunEnd 1");
    const faults = h.faults.map((f) => `${f.subscriber} ${f.event} ${(f.error as Error).message}`);
    assert.deepEqual(faults, [
      "reporter:thrower story:start onStoryStart: sync boom",
      "reporter:thrower story:start onStoryStart: sync boom",
      "reporter:rejecter story:fail onEvent: async boom",
      "reporter:rejecter run:complete onRunEnd: cannot write report",
    ]);
    const cause = h.faults[3]?.error as Error;
    assert.equal((cause.cause as Error).name, "TypeError");
    assert.deepEqual(h.warnings, [
      'gantry: reporter "stuck" did not finish onEvent (story:complete) within 100 ms; it gets no further events',
    ]);
    assert.deepEqual(h.logged, [
      { subscriber: "reporter:stuck", event: "story:complete", method: "onEvent", timeoutMs: 100 },
    ]);
    assert.equal(stuckCalls.at(-1), "story:complete", "no events after it got stuck");
  });

  it("with no timeout of its own, a never-settling reporter is named by the bus's flush", async () => {
    const h = harness([{ name: "hangs", reporter: { onRunEnd: () => new Promise<void>(() => {}) } }], 0);
    emitSampleRun(h.bus);
    const started = Date.now();
    assert.deepEqual(await h.bus.flush(200), ["reporter:hangs"]);
    assert.ok(Date.now() - started < 1000);
    h.dispose();
  });

  it("reports both failures when onEvent and the named method throw on the same event", async () => {
    const h = harness([
      {
        name: "twice",
        reporter: {
          onEvent(type, _payload) {
            if (type === "run:start") throw new Error("first");
          },
          onRunStart() {
            throw new Error("second");
          },
        },
      },
    ]);
    emitSampleRun(h.bus);
    await h.bus.flush();
    h.dispose();
    assert.deepEqual(
      h.faults.map((f) => (f.error as Error).message),
      ["onEvent: first; onRunStart: second"],
    );
  });

  it("dispose unsubscribes every reporter", async () => {
    const { calls, reporter } = recorder();
    const h = harness([{ name: "rec", reporter }]);
    h.dispose();
    emitSampleRun(h.bus);
    await h.bus.flush();
    assert.deepEqual(calls, []);
  });
});
