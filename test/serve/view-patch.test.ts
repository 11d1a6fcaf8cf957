import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import {
  applyViewPatch,
  type ViewPatch,
  viewJson,
  viewParts,
  viewPatch,
} from "../../src/serve/view-patch.js";
import type { RunView } from "../../src/serve/view-types.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { call } from "./http.js";

const base = (): RunView => ({
  runId: RUN_ID,
  feature: "f",
  status: "running",
  live: true,
  costUsd: 0,
  costBasis: [],
  currentStory: "US-1",
  stories: [
    { id: "US-1", title: "First", status: "in-progress", attempts: 1, costUsd: 0, costBasis: [], gates: [] },
    { id: "US-2", title: "Second", status: "pending", attempts: 0, costUsd: 0, costBasis: [], gates: [] },
  ],
  gates: [],
  pending: [],
  log: ["a", "b", "c"],
});

const patched = (from: RunView, to: RunView) => {
  const held = JSON.parse(viewJson(viewParts(from, 1)));
  const patch = JSON.parse(viewPatch(viewParts(from, 1), viewParts(to, 2))) as ViewPatch;
  applyViewPatch(held, patch);
  return { held, patch };
};

describe("serve: a run's change as a patch", () => {
  it("the whole view's JSON is JSON.stringify's, with the version", () => {
    const view = base();
    assert.deepEqual(JSON.parse(viewJson(viewParts(view, 7))), { ...view, version: 7 });
    assert.equal(viewJson(viewParts(view, 7)), `${JSON.stringify(view).slice(0, -1)},"version":7}`);
  });

  it("carries only the changed story, fields and new log lines, and applies to the same view", () => {
    const from = base();
    const to = base();
    to.stories[1] = { ...(to.stories[1] as RunView["stories"][0]), status: "in-progress", stage: "verify" };
    to.costUsd = 0.5;
    to.currentStory = undefined;
    to.endedAt = "2026-01-01T00:00:00.000Z";
    to.log = ["b", "c", "d", "e"];
    const { held, patch } = patched(from, to);
    assert.deepEqual(held, { ...JSON.parse(JSON.stringify(to)), version: 2 });
    assert.deepEqual(Object.keys(patch.stories), ["1"], "only US-2 is sent");
    assert.deepEqual(Object.keys(patch.set).sort(), ["costUsd", "endedAt"]);
    assert.deepEqual(patch.unset, ["currentStory"]);
    assert.deepEqual([patch.logDrop, patch.logAdd], [1, ["d", "e"]]);
  });

  it("handles a log that repeats a line, shrinking and growing story lists, and a log that does not line up", () => {
    const from = base();
    from.log = ["x", "x", "x"];
    const to = base();
    to.log = ["x", "x", "x", "x"];
    to.stories.pop();
    assert.deepEqual(patched(from, to).held.log, to.log);
    assert.equal(patched(from, to).held.stories.length, 1);
    const grown = base();
    grown.stories.push({
      id: "US-3",
      title: "T",
      status: "pending",
      attempts: 0,
      costUsd: 0,
      costBasis: [],
      gates: [],
    });
    grown.log = ["q"];
    const { held, patch } = patched(from, grown);
    assert.deepEqual(held, { ...JSON.parse(JSON.stringify(grown)), version: 2 });
    assert.equal(patch.logDrop, 3);
  });
});

describe("serve: the event stream sends patches that rebuild the view the routes give", () => {
  let server: ServeHandle;
  let run: ReturnType<typeof fakeRun>;
  before(async () => {
    run = fakeRun();
    server = await startServer({ root: run.root, host: "127.0.0.1", port: 0, token: "t", pollMs: 40 });
  });
  after(() => server.close());

  it("a client that applies every patch to the view it started from holds the served view", async () => {
    const stop = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/api/events`, {
      headers: { authorization: "Bearer t" },
      signal: stop.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let held: (RunView & { version: number }) | undefined;
    let buffer = "";
    let patches = 0;
    let patchBytes = 0;
    let wholeBytes = 0;
    const readUntil = async (done: () => boolean) => {
      const timer = setTimeout(() => stop.abort(), 6000);
      try {
        while (!done()) {
          const { value } = await reader.read();
          buffer += value ?? "";
          for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const [, type, data] = /^event: (\w+)\ndata: (.*)$/m.exec(frame) ?? [];
            if (type === "run") held = JSON.parse(data as string);
            if (type === "patch") {
              const patch = JSON.parse(data as string) as ViewPatch;
              assert.equal(patch.from, held?.version, "each patch starts where the last left off");
              applyViewPatch(held as unknown as Record<string, unknown>, patch);
              patches += 1;
              patchBytes += (data as string).length;
            }
          }
        }
      } finally {
        clearTimeout(timer);
      }
    };
    await readUntil(() => held !== undefined);
    for (const stage of ["implement", "verify", "review", "rectify"]) {
      run.append({ type: "stage:enter", storyId: "US-1", stage });
      await readUntil(() => held?.stories[0]?.stage === stage);
    }
    run.append({
      type: "story:complete",
      story: { id: "US-1", title: "First", status: "passed", attempts: 1 },
      metrics: { durationMs: 1200, agentCalls: 1, tier: "fast" },
    });
    run.append({
      type: "story:start",
      story: { id: "US-2", title: "Second", status: "in-progress", attempts: 0 },
      tier: "fast",
    });
    await readUntil(() => held?.stories[1]?.status === "in-progress");
    const served = await call(server.port, "GET", `/api/runs/${RUN_ID}`, {
      headers: { authorization: "Bearer t" },
    });
    wholeBytes = served.text.length;
    stop.abort();
    assert.deepEqual(held, JSON.parse(served.text), "the patched view is the served one, version and all");
    assert.ok(patches >= 4, `${patches} patches`);
    assert.ok(
      patchBytes / patches < wholeBytes / 2,
      `a patch ${patchBytes / patches} B, the view ${wholeBytes} B`,
    );
  });
});
