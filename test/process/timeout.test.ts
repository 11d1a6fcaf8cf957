import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { within } from "../../src/process/timeout.js";

const never = new Promise<never>(() => {});

describe("within", () => {
  test("the work's value when it settles first", async () => {
    assert.deepEqual(
      await within(
        delay(5).then(() => 42),
        { ms: 1000 },
      ),
      { kind: "value", value: 42 },
    );
  });

  test("timeout when the work is slower than the bound, and the wait ends near the bound", async () => {
    const started = performance.now();
    assert.deepEqual(await within(never, { ms: 50 }), { kind: "timeout" });
    const took = performance.now() - started;
    assert.ok(took >= 45 && took < 1000, `took ${took} ms`);
  });

  test("a rejection of the work is thrown as it is", async () => {
    await assert.rejects(within(Promise.reject(new Error("boom")), { ms: 1000 }), /boom/);
  });

  test("no time limit without ms (or with 0): only the work or the signal ends it", async () => {
    assert.deepEqual(
      await within(
        delay(30).then(() => "late but fine"),
        { ms: 0 },
      ),
      {
        kind: "value",
        value: "late but fine",
      },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    assert.deepEqual(await within(never, { signal: controller.signal }), { kind: "aborted" });
  });

  test("an already aborted signal ends the wait at once, before a slower work", async () => {
    assert.deepEqual(await within(delay(50), { ms: 1000, signal: AbortSignal.abort() }), { kind: "aborted" });
  });

  test("with graceMs, work that finishes within the grace still gives its value", async () => {
    const controller = new AbortController();
    const work = delay(30).then(() => "finished");
    controller.abort();
    assert.deepEqual(await within(work, { signal: controller.signal, graceMs: 500 }), {
      kind: "value",
      value: "finished",
    });
    assert.deepEqual(await within(never, { signal: controller.signal, graceMs: 20 }), { kind: "aborted" });
  });

  test("leaves no timer or listener behind (the process could exit right after)", async () => {
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners += 1;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners -= 1;
      remove(...args);
    }) as typeof remove;
    const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    await within(Promise.resolve(1), { ms: 60_000, signal: controller.signal });
    const afterwards = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    assert.equal(afterwards, before);
    assert.equal(listeners, 0);
  });
});
