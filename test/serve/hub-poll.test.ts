import assert from "node:assert/strict";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import type { RunView } from "../../src/serve/view-types.js";
import { writeJsonAtomic } from "../../src/util/atomic-write.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { call } from "./http.js";

const TOKEN = "test-token-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * What the server reads between its polls, and what it no longer reads: an answer reads only the events
 * appended, a request for a run not seen yet looks at that one directory, and state.json is parsed again
 * when the run rewrites it. A slow poll (1 s) makes "between two polls" the normal case here.
 */
describe("gantry serve: reading a run between polls", () => {
  let server: ServeHandle;
  let run: ReturnType<typeof fakeRun>;
  before(async () => {
    run = fakeRun();
    server = await startServer({ root: run.root, host: "127.0.0.1", port: 0, token: TOKEN, pollMs: 1000 });
  });
  after(() => server.close());

  const view = async (runId: string) => {
    const reply = await call(server.port, "GET", `/api/runs/${runId}`, { headers: auth });
    return { status: reply.status, view: reply.body as unknown as RunView };
  };

  it("streams a change that an answer read between two polls", async () => {
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/api/events`, {
      headers: auth,
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    const until = async (pattern: RegExp) => {
      const timer = setTimeout(() => controller.abort(), 6000);
      try {
        while (!pattern.test(text)) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`stream ended before ${pattern}`);
          text += value;
        }
      } finally {
        clearTimeout(timer);
      }
    };
    await until(/event: run\ndata: .*"US-1"/);
    // The answer (to a question nobody asked) reads the appended event now; the next poll finds nothing
    // new in the file, and must still tell the streams.
    run.append({ type: "stage:enter", storyId: "US-1", stage: "rectify" });
    const answer = await call(server.port, "POST", `/api/runs/${RUN_ID}/answer`, {
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ requestId: "00000000-0000-0000-0000-000000000000", action: "approve" }),
    });
    assert.equal(answer.body.code, "no-pending-request");
    await until(/"stage":"rectify"/);
    assert.equal((await view(RUN_ID)).view.stories[0]?.stage, "rectify", "a read after the poll has it too");
    controller.abort();
  });

  it("finds a run started after the last poll at once, and answers 404 for one that does not exist", async () => {
    const second = "20260101-130000-efgh";
    cpSync(run.runDir, join(run.root, ".gantry", "runs", second), { recursive: true });
    const found = await view(second);
    assert.equal(found.status, 200);
    assert.equal(found.view.runId, second);
    assert.deepEqual([(await view("20260101-140000-none")).status], [404]);
    const list = await call(server.port, "GET", "/api/runs", { headers: auth });
    assert.ok(list.text.includes(second), "the run list has it too");
  });

  it("reads state.json again when the run rewrites it", async () => {
    assert.equal((await view(RUN_ID)).view.live, true);
    const statePath = join(run.runDir, "state.json");
    writeJsonAtomic(statePath, { ...JSON.parse(readFileSync(statePath, "utf8")), status: "paused" });
    const deadline = Date.now() + 6000;
    let seen = await view(RUN_ID);
    while (seen.view.live && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await view(RUN_ID);
    }
    assert.deepEqual([seen.view.live, seen.view.status], [false, "paused"]);
  });
});
