import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createEventBus, type SubscriberFault } from "../../src/bus/event-bus.js";

const story = { id: "US-1", title: "t", status: "pending" as const, attempts: 0 };

describe("event bus", () => {
  it("stamps every payload with runId and an ISO time", () => {
    const bus = createEventBus({ runId: "r1", now: () => new Date("2026-01-02T03:04:05.000Z") });
    const seen: unknown[] = [];
    bus.on("run:start", "test", (e) => {
      seen.push(e);
    });
    bus.emit("run:start", { feature: "f", totalStories: 2 });
    assert.deepEqual(seen, [{ feature: "f", totalStories: 2, runId: "r1", at: "2026-01-02T03:04:05.000Z" }]);
  });

  it("a throwing and a rejecting subscriber do not stop the others; both are reported by name", async () => {
    const faults: SubscriberFault[] = [];
    const bus = createEventBus({ runId: "r", onFault: (f) => faults.push(f) });
    const reached: string[] = [];
    bus.on("story:start", "thrower", () => {
      throw new Error("boom");
    });
    bus.on("story:start", "rejecter", async () => {
      throw new Error("async boom");
    });
    bus.on("story:start", "good", () => {
      reached.push("good");
    });
    bus.onAny("any", (type) => {
      reached.push(`any:${type}`);
    });
    bus.emit("story:start", { story, tier: "fast" });
    await bus.flush();
    assert.deepEqual(reached, ["good", "any:story:start"]);
    assert.deepEqual(
      faults.map((f) => [f.subscriber, f.event, (f.error as Error).message]),
      [
        ["thrower", "story:start", "boom"],
        ["rejecter", "story:start", "async boom"],
      ],
    );
  });

  it("flush waits for async subscribers, including work they start while flushing", async () => {
    const bus = createEventBus({ runId: "r" });
    const done: string[] = [];
    bus.on("run:start", "slow", async () => {
      await new Promise((r) => setTimeout(r, 30));
      done.push("slow");
      bus.emit("run:pause", { reason: "x" });
    });
    bus.on("run:pause", "chained", async () => {
      await new Promise((r) => setTimeout(r, 10));
      done.push("chained");
    });
    bus.emit("run:start", { feature: "f", totalStories: 0 });
    assert.deepEqual(done, []);
    const stuck = await bus.flush();
    assert.deepEqual(stuck, []);
    assert.deepEqual(done, ["slow", "chained"]);
  });

  it("a subscriber that never settles is reported after the timeout instead of hanging", async () => {
    const bus = createEventBus({ runId: "r" });
    bus.on("run:start", "forever", () => new Promise<void>(() => {}));
    bus.emit("run:start", { feature: "f", totalStories: 0 });
    const stuck = await bus.flush(50);
    assert.deepEqual(stuck, ["forever"]);
  });

  it("unsubscribing stops delivery", () => {
    const bus = createEventBus({ runId: "r" });
    let count = 0;
    const off = bus.on("run:pause", "t", () => {
      count += 1;
    });
    bus.emit("run:pause", { reason: "a" });
    off();
    bus.emit("run:pause", { reason: "b" });
    assert.equal(count, 1);
  });
});
