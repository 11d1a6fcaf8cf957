import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { addDevice, registryFile, revokeDevice } from "../../src/serve/devices/registry.js";
import { startDeviceRoutes } from "../../src/serve/devices/routes.js";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import { deviceKeys, send, signed } from "./device-client.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { call } from "./http.js";

const RUNS = "/v1/device/runs";
const RUN = `/v1/device/runs/${RUN_ID}`;
const ANSWER = `${RUN}/answer`;

describe("gantry serve: signed device routes", () => {
  const keys = deviceKeys();
  const other = deviceKeys();
  let run: ReturnType<typeof fakeRun>;
  let server: ServeHandle;
  let reader: string;
  let answerer: string;
  let revoked: string;
  const warnings: string[] = [];
  const start = async (capacity = 100) => {
    const devices = startDeviceRoutes(run.root, { nonceCapacity: capacity, warn: (l) => warnings.push(l) });
    server = await startServer({
      root: run.root,
      host: "127.0.0.1",
      port: 0,
      token: "tok",
      pollMs: 50,
      deviceRoutes: devices.routes,
    });
  };
  before(async () => {
    run = fakeRun();
    reader = addDevice(run.root, { name: "reader", publicKey: keys.publicKey, scopes: ["read"] }).id;
    answerer = addDevice(run.root, {
      name: "phone",
      publicKey: keys.publicKey,
      scopes: ["read", "answer"],
    }).id;
    revoked = addDevice(run.root, { name: "old", publicKey: keys.publicKey, scopes: ["read", "answer"] }).id;
    revokeDevice(run.root, revoked);
    await start();
  });
  after(() => server.close());

  it("refuses in the fixed order: unsigned, unknown device, stale/future timestamp, bad signature, revoked, replayed nonce", async () => {
    const code = async (request: Parameters<typeof send>[1], extra: Record<string, string> = {}) =>
      (await send(server.port, request, extra)).body.code;
    const now = Math.floor(Date.now() / 1000);
    // Each request below also fails every later check, so it shows the earlier one is made first.
    const unsigned = signed(other, "d-000000000000", "GET", RUNS, "", { timestamp: now - 3600 });
    assert.equal(await code(unsigned, { "x-gantry-signature": "" }), "unsigned");
    assert.equal(
      await code(signed(other, "d-000000000000", "GET", RUNS, "", { timestamp: now - 3600 })),
      "unknown-device",
    );
    assert.equal(
      await code(signed(other, revoked, "GET", RUNS, "", { timestamp: now - 3600 })),
      "stale-timestamp",
    );
    assert.equal(
      await code(signed(other, revoked, "GET", RUNS, "", { timestamp: now + 3600 })),
      "future-timestamp",
    );
    assert.equal(await code(signed(other, revoked, "GET", RUNS)), "bad-signature", "another key's signature");
    const good = signed(keys, reader, "GET", RUNS);
    assert.equal(await code({ ...good, target: `${RUN}` }), "bad-signature", "signed for another target");
    const revokedRequest = signed(keys, revoked, "GET", RUNS);
    assert.equal(await code(revokedRequest), "revoked");
    assert.equal(await code(revokedRequest), "revoked", "a revoked device's nonce is not even recorded");
    const first = await send(server.port, good);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      (first.body as unknown as { runId: string }[]).map((r) => r.runId),
      [RUN_ID],
    );
    assert.equal(await code(good), "replayed-nonce");
  });

  it("then scope, then the body's schema; an option not offered writes nothing; verbs not offered are unknown", async () => {
    const body = (b: unknown) => JSON.stringify(b);
    const res = (request: ReturnType<typeof signed>) => send(server.port, request);
    const scope = await res(
      signed(keys, reader, "POST", ANSWER, body({ requestId: run.requestId, action: "nope", extra: 1 })),
    );
    assert.deepEqual([scope.status, scope.body.code], [403, "scope"], "scope before the body");
    const extra = await res(
      signed(
        keys,
        answerer,
        "POST",
        ANSWER,
        body({ requestId: run.requestId, action: "approve", note: "hi" }),
      ),
    );
    assert.deepEqual([extra.status, extra.body.code], [422, "invalid-body"]);
    const notOffered = await res(
      signed(keys, answerer, "POST", ANSWER, body({ requestId: run.requestId, action: "retry" })),
    );
    assert.deepEqual([notOffered.status, notOffered.body.code], [422, "option-not-offered"]);
    assert.deepEqual(
      readdirSync(join(run.runDir, "interaction")),
      [`${run.requestId}.request.json`],
      "nothing written",
    );
    for (const [method, target] of [
      ["POST", `${RUN}/pause`],
      ["POST", `${RUN}/stop`],
      ["POST", `${RUN}/control`],
      ["POST", `${RUN}/say`],
      ["DELETE", RUN],
      ["GET", "/v1/device/devices"],
    ] as const) {
      const reply = await res(
        signed(keys, answerer, method, target, method === "POST" ? body({ text: "free" }) : ""),
      );
      assert.deepEqual([reply.status, reply.body.code], [404, "unknown-verb"], `${method} ${target}`);
    }
  });

  it("never takes the bearer token on a device route", async () => {
    const reply = await call(server.port, "GET", RUNS, { headers: { authorization: "Bearer tok" } });
    assert.deepEqual([reply.status, reply.body.code], [401, "token-on-device-route"]);
    const both = await send(server.port, signed(keys, reader, "GET", RUNS), { authorization: "Bearer tok" });
    assert.equal(both.body.code, "token-on-device-route");
  });

  it("reads the redacted view and answers the question; the audit log has every request, no body or secret", async () => {
    const view = await send(server.port, signed(keys, reader, "GET", RUN));
    assert.equal(view.status, 200);
    assert.ok(!view.text.includes("review failed") && !view.text.includes("First"), "no free text");
    assert.deepEqual((view.body as { pending: { id: string; options: string[] }[] }).pending[0]?.options, [
      "approve",
      "skip",
      "abort",
    ]);
    // The redacted view is made once per change of the run: a change shows in the next read.
    assert.equal((view.body as { stories: { stage?: string }[] }).stories[0]?.stage, "verify");
    run.append({ type: "stage:enter", storyId: "US-1", stage: "review" });
    await new Promise((r) => setTimeout(r, 300));
    const changed = await send(server.port, signed(keys, reader, "GET", RUN));
    assert.equal((changed.body as { stories: { stage?: string }[] }).stories[0]?.stage, "review");
    const answer = await send(
      server.port,
      signed(keys, answerer, "POST", ANSWER, JSON.stringify({ requestId: run.requestId, action: "skip" })),
    );
    assert.equal(answer.status, 200, answer.text);
    const written = JSON.parse(
      readFileSync(join(run.runDir, "interaction", `${run.requestId}.response.json`), "utf8"),
    );
    assert.deepEqual(written, { action: "skip", respondedBy: `device:${answerer}` });
    const audit = readFileSync(join(run.root, ".gantry", "serve", "audit.jsonl"), "utf8");
    const lines = audit
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.ok(
      lines.some((l) => l.verb === "POST runs/{id}/answer" && l.device === answerer && l.outcome === "ok"),
    );
    assert.ok(lines.some((l) => l.outcome === "revoked" && l.device === revoked));
    assert.ok(lines.some((l) => l.outcome === "unknown-verb"));
    for (const secret of [run.requestId, "requestId", '"action"', "BEGIN", "x-gantry", keys.publicKey])
      assert.ok(!audit.includes(secret), `no bodies, signatures or keys: ${secret}`);
    assert.deepEqual(Object.keys(lines[0]).sort(), ["at", "device", "outcome", "status", "verb"]);
  });

  it("takes every option story-readiness offers (fix, continue, skip, abort) from a signed device", async () => {
    for (const action of ["fix", "continue", "skip", "abort"]) {
      const id = randomUUID();
      const request = {
        id,
        trigger: "story-readiness",
        storyId: "US-1",
        summary: "not ready",
        options: ["fix", "continue", "skip", "abort"],
        timeoutMs: 60_000,
        fallback: "fix",
      };
      writeFileSync(join(run.runDir, "interaction", `${id}.request.json`), JSON.stringify(request));
      run.append({ type: "interaction:request", ...request });
      const reply = await send(
        server.port,
        signed(keys, answerer, "POST", ANSWER, JSON.stringify({ requestId: id, action })),
      );
      assert.equal(reply.status, 200, `${action}: ${reply.text}`);
      const written = JSON.parse(
        readFileSync(join(run.runDir, "interaction", `${id}.response.json`), "utf8"),
      );
      assert.equal(written.action, action);
    }
  });

  it("answers a signed read 304 when the device holds the copy, and only after every check", async () => {
    for (const target of ["/v1/device/runs", RUN]) {
      const first = await send(server.port, signed(keys, reader, "GET", target));
      assert.equal(first.status, 200);
      const tag = first.headers.etag as string;
      assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
      const held = { "if-none-match": tag };
      const again = await send(server.port, signed(keys, reader, "GET", target), held);
      assert.equal(again.status, 304, target);
      assert.equal(again.text, "");
      assert.equal(again.headers.etag, tag);
      const other = await send(server.port, signed(keys, reader, "GET", target), { "if-none-match": '"x"' });
      assert.equal(other.status, 200);
      assert.equal(other.text, first.text);
      // Refusals come first, whatever the device holds.
      const request = signed(keys, reader, "GET", target);
      const unsigned = await send(server.port, { ...request, headers: {} }, held);
      assert.equal(unsigned.body.code, "unsigned");
      assert.equal((await send(server.port, request, held)).status, 304);
      assert.equal((await send(server.port, request, held)).body.code, "replayed-nonce");
      const tampered = signed(keys, reader, "GET", target);
      const forged = await send(server.port, { ...tampered, target: `${target}?x=1` }, held);
      assert.equal(forged.body.code, "bad-signature");
      assert.equal(
        (await send(server.port, signed(keys, revoked, "GET", target), held)).body.code,
        "revoked",
      );
    }
    const audit = readFileSync(join(run.root, ".gantry", "serve", "audit.jsonl"), "utf8");
    assert.ok(audit.includes('"status":304,"outcome":"not-modified"'), "a 304 is in the audit log");
  });

  it("remembers nonces across a restart, and refuses (never evicts) when the store is full", async () => {
    const request = signed(keys, reader, "GET", RUNS);
    assert.equal((await send(server.port, request)).status, 200);
    await server.close();
    await start(3);
    assert.equal(
      (await send(server.port, request)).body.code,
      "replayed-nonce",
      "a replay after the restart",
    );
    const codes: string[] = [];
    for (let i = 0; i < 8; i++)
      codes.push(String((await send(server.port, signed(keys, reader, "GET", RUNS))).body.code ?? "ok"));
    assert.ok(codes.includes("nonce-store-full"), codes.join(","));
    assert.equal(codes.at(-1), "nonce-store-full");
  });

  it("ignores a registry that group or others may write", async () => {
    chmodSync(registryFile(run.root), 0o666);
    try {
      const reply = await send(server.port, signed(keys, reader, "GET", RUNS));
      assert.equal(reply.body.code, "unknown-device");
      assert.match(warnings.join("\n"), /writable by group or others/);
    } finally {
      chmodSync(registryFile(run.root), 0o600);
    }
  });
});
