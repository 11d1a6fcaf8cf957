import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createEventBus } from "../../src/bus/event-bus.js";
import type { RunControl } from "../../src/model/run-control.js";
import { CONTROL_DIR, wireServeControl } from "../../src/subscribers/serve-control.js";

const summary = (id: string) => ({ id, title: id, status: "passed" as const, attempts: 1 });

function setup() {
  const runDir = mkdtempSync(join(tmpdir(), "gantry-control-"));
  const dir = join(runDir, CONTROL_DIR);
  mkdirSync(dir);
  const bus = createEventBus({ runId: "run-1" });
  const seen: string[] = [];
  const control: RunControl = {
    vetoStory: (id, reason) => seen.push(`veto ${id}: ${reason}`),
    requestPause: (reason) => seen.push(`pause: ${reason}`),
    decide: () => {},
    raiseCostLimit: () => 0,
    signal: new AbortController().signal,
  };
  const events: string[] = [];
  bus.on("run:control", "test", (e) => {
    events.push(`${e.action} ${e.storyId ?? "-"} ${e.by}`);
  });
  let n = 0;
  const send = (body: object) =>
    writeFileSync(join(dir, `${String(++n).padStart(15, "0")}-x.json`), JSON.stringify(body));
  const warnings: string[] = [];
  const interrupts: number[] = [];
  const dispose = wireServeControl(bus, {
    runDir,
    control,
    warn: (line) => warnings.push(line),
    pollMs: 20,
    interrupt: () => interrupts.push(1),
  });
  return { bus, dir, seen, events, send, warnings, interrupts, dispose };
}

describe("serve-control subscriber", () => {
  it("pauses after the story in flight ends, not before; records each control once", async () => {
    const t = setup();
    t.bus.emit("story:start", { story: summary("US-1"), tier: "fast" });
    t.send({ action: "pause", by: "page" });
    await sleep(120);
    assert.deepEqual(t.seen, [], "not while US-1 is in flight");
    assert.deepEqual(t.events, ["pause - page"]);
    t.bus.emit("story:complete", {
      story: summary("US-1"),
      metrics: { durationMs: 1, costUsd: 0, attempts: 1, tier: "fast", agentCalls: 1 },
    });
    assert.deepEqual(t.seen, ["pause: paused from gantry serve (page)"]);
    assert.deepEqual(readdirSync(t.dir), [], "taken and removed");
    t.dispose();
  });

  it("pauses at once between stories; vetoes a skipped story; aborts as Ctrl-C; ignores what is not a control", async () => {
    const t = setup();
    t.send({ action: "skip", storyId: "US-2", by: "device:phone" });
    t.send({ action: "pause", by: "page" });
    t.send({ action: "stop", by: "page" });
    t.send({ action: "skip", storyId: "../x", by: "page" });
    t.send({ action: "abort", by: "page" });
    await sleep(150);
    assert.deepEqual(t.seen, [
      "veto US-2: skipped from gantry serve (device:phone)",
      "pause: paused from gantry serve (page)",
    ]);
    assert.deepEqual(t.events, ["skip US-2 device:phone", "pause - page", "abort - page"]);
    assert.deepEqual(t.interrupts, [1]);
    assert.equal(t.warnings.length, 2);
    assert.match(t.warnings[0] ?? "", /not a control from gantry serve; ignored/);
    t.dispose();
  });
});
