import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import type { RunView, StoryView } from "../../src/serve/view-types.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { call } from "./http.js";

const TOKEN = "test-token-0123456789";

const auth = { authorization: `Bearer ${TOKEN}` };
const json = { ...auth, "content-type": "application/json" };

describe("gantry serve: token routes", () => {
  let server: ServeHandle;
  let run: ReturnType<typeof fakeRun>;
  before(async () => {
    run = fakeRun();
    server = await startServer({
      root: run.root,
      host: "127.0.0.1",
      port: 0,
      token: TOKEN,
      pollMs: 50,
      maxClients: 2,
    });
  });
  after(() => server.close());

  it("serves the static page without a token, with a strict CSP", async () => {
    const page = await call(server.port, "GET", "/");
    assert.equal(page.status, 200);
    assert.match(page.text, /<!doctype html>/);
    assert.ok(!page.text.includes(RUN_ID), "no run data in the static page");
  });

  it("refuses a wrong Host or Origin before anything else, even with the token", async () => {
    assert.equal((await call(server.port, "GET", "/", { host: "evil.example:80" })).body.code, "bad-host");
    const rebound = await call(server.port, "GET", "/api/runs", {
      host: `attacker.example:${server.port}`,
      headers: auth,
    });
    assert.equal(rebound.status, 421);
    const origin = await call(server.port, "GET", "/api/runs", {
      headers: { ...auth, origin: "http://evil.example" },
    });
    assert.deepEqual([origin.status, origin.body.code], [403, "bad-origin"]);
    const own = await call(server.port, "GET", "/api/runs", {
      headers: { ...auth, origin: `http://localhost:${server.port}` },
    });
    assert.equal(own.status, 200);
  });

  it("needs the token on every other route, and refuses a device signature there", async () => {
    for (const path of ["/api/runs", `/api/runs/${RUN_ID}`, "/api/events"]) {
      assert.equal((await call(server.port, "GET", path)).body.code, "no-token", path);
      assert.equal(
        (await call(server.port, "GET", path, { headers: { authorization: "Bearer wrong" } })).status,
        401,
      );
    }
    // The token with one character changed (also to one of two bytes), a prefix, the token and more, another scheme,
    // the token in another case: every one refused, the token itself taken.
    const changed = `${TOKEN.slice(0, -1)}${TOKEN.endsWith("9") ? "8" : "9"}`;
    for (const header of [
      `Bearer ${changed}`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}0`,
      `Bearer ${TOKEN.slice(0, -1)}\u00e9`,
      `Basic ${TOKEN}`,
      `Bearer ${TOKEN.toUpperCase()}`,
    ])
      assert.equal(
        (await call(server.port, "GET", "/api/runs", { headers: { authorization: header } })).status,
        401,
        header,
      );
    assert.equal((await call(server.port, "GET", "/api/runs", { headers: auth })).status, 200);
    // A target that is not a plain path is read as the URL parser reads it, as before: the same routes.
    for (const [target, status] of [
      ["/api/runs?x=1", 200],
      ["/api/x/../runs", 200],
      ["//api/runs", 404],
      [`/api/runs/${RUN_ID}/`, 404],
    ] as const)
      assert.equal((await call(server.port, "GET", target, { headers: auth })).status, status, target);
    const signed = await call(server.port, "GET", "/api/runs", {
      headers: { ...auth, "x-gantry-signature": "x" },
    });
    assert.deepEqual([signed.status, signed.body.code], [401, "signature-on-token-route"]);
  });

  it("shows the run from its files: stories, stage, cost with basis, verdicts with their tree, the question", async () => {
    const list = await call(server.port, "GET", "/api/runs", { headers: auth });
    assert.deepEqual(
      (list.body as unknown as { runId: string; live: boolean }[]).map((r) => [r.runId, r.live]),
      [[RUN_ID, true]],
    );
    const view = (await call(server.port, "GET", `/api/runs/${RUN_ID}`, { headers: auth }))
      .body as unknown as RunView;
    assert.equal(view.status, "running");
    assert.deepEqual(view.costBasis, ["estimated"]);
    const [first, second] = view.stories as [StoryView, StoryView];
    assert.deepEqual(
      [first.id, first.status, first.tier, first.stage, first.costUsd, first.attempts],
      ["US-1", "in-progress", "fast", "verify", 0.25, 1],
    );
    assert.deepEqual(first.gates, [{ gate: "verify", verdict: "pass", tree: "b".repeat(40), attempt: 1 }]);
    assert.deepEqual(
      [second.id, second.status],
      ["US-2", "pending"],
      "a story not reached yet, from the PRD",
    );
    assert.deepEqual(
      view.pending.map((q) => [q.id, q.answerable]),
      [[run.requestId, true]],
    );
    assert.equal((await call(server.port, "GET", "/api/runs/nope", { headers: auth })).status, 404);
  });

  it("refuses an answer with an extra field, an option not offered, or too big a body; writes nothing", async () => {
    const answer = (body: unknown, headers = json) =>
      call(server.port, "POST", `/api/runs/${RUN_ID}/answer`, { headers, body: JSON.stringify(body) });
    const extra = await answer({ requestId: run.requestId, action: "approve", note: "free text" });
    assert.deepEqual([extra.status, extra.body.code], [422, "invalid-body"]);
    assert.match(String(extra.body.message), /additional properties \(note\)/);
    const notOffered = await answer({ requestId: run.requestId, action: "retry" });
    assert.deepEqual([notOffered.status, notOffered.body.code], [422, "option-not-offered"]);
    const big = await answer({ requestId: run.requestId, action: "approve", pad: "x".repeat(10_000) });
    assert.deepEqual([big.status, big.body.code], [413, "body-too-large"]);
    const form = await answer({ requestId: run.requestId, action: "approve" }, {
      ...auth,
      "content-type": "text/plain",
    } as typeof json);
    assert.equal(form.status, 415);
    assert.deepEqual(
      readdirSync(join(run.runDir, "interaction")),
      [`${run.requestId}.request.json`],
      "nothing written",
    );
  });

  it("takes exactly one answer to a question", async () => {
    const body = (action: string) => JSON.stringify({ requestId: run.requestId, action });
    const [a, b] = await Promise.all([
      call(server.port, "POST", `/api/runs/${RUN_ID}/answer`, { headers: json, body: body("skip") }),
      call(server.port, "POST", `/api/runs/${RUN_ID}/answer`, { headers: json, body: body("approve") }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
    const written = JSON.parse(
      readFileSync(join(run.runDir, "interaction", `${run.requestId}.response.json`), "utf8"),
    );
    assert.equal(written.action, a.status === 200 ? "skip" : "approve");
    assert.equal(written.respondedBy, "page");
  });

  it("leaves controls for the run: pause, skip a story not started; not the story in flight", async () => {
    const control = (body: unknown) =>
      call(server.port, "POST", `/api/runs/${RUN_ID}/control`, { headers: json, body: JSON.stringify(body) });
    assert.equal((await control({ action: "pause" })).status, 200);
    assert.equal((await control({ action: "skip", storyId: "US-2" })).status, 200);
    assert.equal((await control({ action: "skip", storyId: "US-1" })).body.code, "story-not-pending");
    assert.equal((await control({ action: "skip" })).body.code, "invalid-body");
    assert.equal((await control({ action: "pause", storyId: "US-2" })).body.code, "invalid-body");
    assert.equal((await control({ action: "stop" })).body.code, "invalid-body");
    const files = readdirSync(join(run.runDir, "control")).sort();
    assert.equal(files.length, 2);
    const taken = files.map((f) => JSON.parse(readFileSync(join(run.runDir, "control", f), "utf8")));
    assert.deepEqual(taken, [
      { action: "pause", by: "page" },
      { action: "skip", storyId: "US-2", by: "page" },
    ]);
  });

  it("streams the run as it changes, to a bounded number of clients", async () => {
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/api/events`, {
      headers: auth,
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    const second = await fetch(`http://127.0.0.1:${server.port}/api/events`, { headers: auth });
    const third = await fetch(`http://127.0.0.1:${server.port}/api/events`, { headers: auth });
    assert.equal(third.status, 503, "over the client limit");
    await second.body?.cancel();
    const reader = (response.body as ReadableStream<Uint8Array>)
      .pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}`);
        text += value;
      }
    };
    await until(/event: run\ndata: .*"US-1"/);
    run.append({ type: "stage:enter", storyId: "US-1", stage: "review" });
    await until(/"stage":"review"/);
    controller.abort();
    assert.ok(!existsSync(join(run.root, ".gantry", "serve")), "the server itself writes no token file");
  });
});
