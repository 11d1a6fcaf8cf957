// Pause and abort sent from gantry serve to real runs of the built CLI (npm run test:serve-live).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RunListItem } from "../../src/serve/hub.js";
import { startServer } from "../../src/serve/server.js";
import type { RunView } from "../../src/serve/view-types.js";
import { gantry, lastRun, makeProject, passingTest, prdStories, story } from "../e2e/harness.js";
import { call } from "./http.js";

const auth = { authorization: "Bearer controls" };
const json = { ...auth, "content-type": "application/json" };
const slowModule = (name: string) => ({
  sleepMs: 1500,
  write: {
    [`src/${name}.js`]: `export const ${name} = 2;\n`,
    [`test/${name}.test.js`]: passingTest(
      name,
      `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}, 2);`,
    ),
  },
});

/** Waits until the live run shows `storyId` in progress; returns the run id. */
async function inProgress(port: number, storyId: string, after?: string): Promise<string> {
  for (let i = 0; i < 1200; i++) {
    const runs = (await call(port, "GET", "/api/runs", { headers: auth })).body as unknown as RunListItem[];
    for (const run of runs.filter((r) => r.live && r.runId !== after)) {
      const view = (await call(port, "GET", `/api/runs/${run.runId}`, { headers: auth }))
        .body as unknown as RunView;
      if (view.stories.find((s) => s.id === storyId)?.status === "in-progress") return run.runId;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${storyId} never started`);
}

describe("controls from gantry serve on real runs", { timeout: 300_000 }, () => {
  it("pause waits for the story in flight, then the run pauses; abort stops the next run as Ctrl-C does", async () => {
    const root = makeProject({
      stories: [story("US-1"), story("US-2"), story("US-3")],
      plan: { "US-1": [slowModule("alpha")], "US-2": [slowModule("beta")], "US-3": [slowModule("gamma")] },
    });
    const server = await startServer({ root, host: "127.0.0.1", port: 0, token: "controls", pollMs: 50 });
    try {
      const first = gantry(root, ["run", "--feature", "f"]);
      const runId = await inProgress(server.port, "US-1");
      const pause = await call(server.port, "POST", `/api/runs/${runId}/control`, {
        headers: json,
        body: '{"action":"pause"}',
      });
      assert.equal(pause.status, 200, pause.text);
      const paused = await first;
      assert.equal(paused.code, 3, paused.stderr);
      assert.deepEqual(
        Object.values(prdStories(root)).map((s) => s.status),
        ["passed", "pending", "pending"],
      );
      const events = lastRun(root).events;
      assert.deepEqual(
        events.filter((e) => e.type === "run:control").map((e) => [e.action, e.by]),
        [["pause", "page"]],
      );
      assert.equal(events.find((e) => e.type === "run:pause")?.reason, "paused from gantry serve (page)");

      const second = gantry(root, ["run", "--feature", "f"]);
      const next = await inProgress(server.port, "US-2", runId);
      const abort = await call(server.port, "POST", `/api/runs/${next}/control`, {
        headers: json,
        body: '{"action":"abort"}',
      });
      assert.equal(abort.status, 200, abort.text);
      const aborted = await second;
      assert.equal(aborted.code, 130, aborted.stderr);
      assert.match(aborted.stderr, /SIGINT: stopping/);
      assert.notEqual(prdStories(root)["US-2"]?.status, "passed");
      assert.equal(prdStories(root)["US-3"]?.status, "pending");
      assert.deepEqual(
        lastRun(root)
          .events.filter((e) => e.type === "run:control")
          .map((e) => e.action),
        ["abort"],
      );
    } finally {
      await server.close();
    }
  });
});
