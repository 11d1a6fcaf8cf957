import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { createEventBus } from "../../src/bus/event-bus.js";
import { ConfigSchema } from "../../src/config/schema.js";
import { createBroker } from "../../src/interaction/broker.js";
import {
  createWebhookChannel,
  SIGNATURE_HEADER,
  sign,
  verify,
} from "../../src/interaction/channels/webhook.js";
import { wireInteraction } from "../../src/subscribers/interaction.js";
import { silentLogger } from "../../src/util/logger.js";
import { never, request } from "./helpers.js";

const SECRET = "s3cret-for-tests";
const hmac = (body: string | Buffer, secret = SECRET) =>
  `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

interface Received {
  body: string;
  json: Record<string, unknown>;
  signatureValid: boolean;
}

/** A receiver on 127.0.0.1: checks each POST's signature itself, then lets `answer` reply. */
async function receiver(
  answer: (got: Received, res: ServerResponse) => void,
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const got = {
      body,
      json: JSON.parse(body) as Record<string, unknown>,
      signatureValid: req.headers[SIGNATURE_HEADER] === hmac(body),
    };
    received.push(got);
    if (!got.signatureValid) {
      res.writeHead(401).end();
      return;
    }
    answer(got, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, server };
}

const servers: Server[] = [];
after(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

/** POSTs an answer to gantry's callback server, signed with `secret`. */
async function callBack(url: string, body: object, secret = SECRET): Promise<number> {
  const text = JSON.stringify(body);
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", [SIGNATURE_HEADER]: hmac(text, secret) },
    body: text,
  });
  return response.status;
}

function setup(url: string, extra: { callbackPort?: number; secret?: string | undefined } = {}) {
  const warnings: string[] = [];
  const channel = createWebhookChannel({
    url,
    secret: "secret" in extra ? extra.secret : SECRET,
    secretEnv: "GANTRY_WEBHOOK_SECRET",
    postTimeoutMs: 10_000,
    ...(extra.callbackPort === undefined ? {} : { callbackPort: extra.callbackPort }),
  });
  const broker = createBroker({ channel, signal: never, warn: (l) => warnings.push(l) });
  return { channel, broker, warnings };
}

describe("webhook channel", { concurrency: true, timeout: 20_000 }, () => {
  it("signs the request body with HMAC-SHA256 and takes the action from the response", async () => {
    const hook = await receiver((_got, res) => json(res, 200, { action: "retry", respondedBy: "ops-bot" }));
    const { broker, channel } = setup(hook.url);
    const ask = request();
    const answer = await broker.ask(ask);
    channel.close?.();
    assert.deepEqual(answer, { action: "retry", respondedBy: "webhook:ops-bot" });
    assert.equal(hook.received.length, 1);
    const [got] = hook.received;
    assert.ok(got?.signatureValid, "the receiver's own HMAC check accepts the signature");
    assert.equal(got?.json.id, ask.id);
    assert.equal(got?.json.trigger, "human-review");
    assert.deepEqual(got?.json.options, ask.options);
    assert.equal(got?.json.fallback, "skip");
    assert.equal(got?.json.callbackUrl, undefined, "no callback server unless callbackPort is set");
  });

  it("on {pending: true} waits for a signed callback on 127.0.0.1 and takes its action", async () => {
    const callbacks: number[] = [];
    let sequence: Promise<void> = Promise.resolve();
    const hook = await receiver((got, res) => {
      json(res, 202, { pending: true });
      const url = got.json.callbackUrl as string;
      sequence = (async () => {
        await new Promise((r) => setTimeout(r, 50));
        callbacks.push(await callBack(url, { id: "no-such-id", action: "skip" }));
        callbacks.push(await callBack(url, { id: got.json.id, action: "launch" }));
        callbacks.push(await callBack(url, { id: got.json.id, action: "skip", respondedBy: "alice" }));
        callbacks.push(await callBack(url, { id: got.json.id, action: "abort" }));
      })();
    });
    const { broker, channel } = setup(hook.url, { callbackPort: 0 });
    const answer = await broker.ask(request({ timeoutMs: 15_000 }));
    assert.deepEqual(answer, { action: "skip", respondedBy: "webhook:alice" }, "answered by the callback");
    await sequence;
    channel.close?.();
    assert.deepEqual(
      callbacks,
      [404, 422, 200, 404],
      "unknown id, an action not offered, the answer, a late one",
    );
    assert.match(hook.received[0]?.json.callbackUrl as string, /^http:\/\/127\.0\.0\.1:\d+\/interaction$/);
  });

  it("refuses a callback with a bad signature (401); the timeout then takes the fallback", async () => {
    const statuses: number[] = [];
    let refusedAt = 0;
    let refused: Promise<void> = Promise.resolve();
    const hook = await receiver((got, res) => {
      json(res, 200, { pending: true });
      const url = got.json.callbackUrl as string;
      refused = (async () => {
        statuses.push(await callBack(url, { id: got.json.id, action: "retry" }, "not-the-secret"));
        const unsigned = await fetch(url, {
          method: "POST",
          body: JSON.stringify({ id: got.json.id, action: "retry" }),
        });
        statuses.push(unsigned.status);
        refusedAt = Date.now();
      })();
    });
    const { broker, channel } = setup(hook.url, { callbackPort: 0 });
    const answer = await broker.ask(request({ timeoutMs: 5_000 }));
    const answeredAt = Date.now();
    await refused;
    channel.close?.();
    assert.deepEqual(statuses, [401, 401]);
    assert.ok(refusedAt > 0 && refusedAt < answeredAt, "refused while the question was open");
    assert.deepEqual(answer, { action: "skip", respondedBy: "timeout" });
  });

  it("a receiver that never answers: the timeout takes the fallback", async () => {
    const hook = await receiver(() => {}); // holds the request open
    const { broker, channel } = setup(hook.url);
    const started = Date.now();
    const answer = await broker.ask(request({ timeoutMs: 400, fallback: "abort" }));
    channel.close?.();
    assert.deepEqual(answer, { action: "abort", respondedBy: "timeout" });
    assert.ok(Date.now() - started < 2_000);
  });

  it("an HTTP error, a body that is neither action nor pending, or an unset secret take the fallback, with a warning", async () => {
    const failing = await receiver((_got, res) => json(res, 500, { error: "down" }));
    const vague = await receiver((_got, res) => json(res, 200, { ok: true }));
    for (const [url, expected] of [
      [failing.url, /HTTP 500/],
      [vague.url, /neither/],
    ] as const) {
      const { broker, warnings } = setup(url);
      assert.deepEqual(await broker.ask(request()), { action: "skip", respondedBy: "fallback" });
      assert.match(warnings.join("\n"), expected);
    }
    const silent = await receiver((_got, res) => json(res, 200, { action: "retry" }));
    const { broker, warnings } = setup(silent.url, { secret: undefined });
    assert.deepEqual(await broker.ask(request()), { action: "skip", respondedBy: "fallback" });
    assert.equal(silent.received.length, 0, "nothing is sent unsigned");
    assert.match(warnings.join("\n"), /GANTRY_WEBHOOK_SECRET is not set/);
  });

  it("an answer that is not one of the options takes the fallback", async () => {
    const hook = await receiver((_got, res) => json(res, 200, { action: "retry" }));
    const { broker, warnings } = setup(hook.url);
    const answer = await broker.ask(request({ options: ["approve", "skip", "abort"], fallback: "approve" }));
    assert.deepEqual(answer, { action: "approve", respondedBy: "fallback" });
    assert.match(warnings.join("\n"), /answered "retry", expected one of approve, skip, abort/);
  });

  it("sign and verify agree, and verify rejects any other body, secret or header", () => {
    const body = '{"id":"x","action":"skip"}';
    assert.equal(sign(SECRET, body), hmac(body));
    assert.ok(verify(SECRET, body, hmac(body)));
    assert.ok(!verify(SECRET, `${body} `, hmac(body)));
    assert.ok(!verify("other", body, hmac(body)));
    assert.ok(!verify(SECRET, body, undefined));
    assert.ok(!verify(SECRET, body, "sha256=00"));
  });

  it("wired from the config: the secret comes from the variable secretEnv names; the answer is decided", async () => {
    const hook = await receiver((got, res) =>
      json(res, 200, { action: got.json.trigger === "human-review" ? "retry" : "" }),
    );
    const config = ConfigSchema.parse({
      interaction: {
        channel: "webhook",
        webhook: { url: hook.url, secretEnv: "GANTRY_TEST_WEBHOOK_SECRET" },
        triggers: { "human-review": { timeoutSeconds: 5 } },
      },
    });
    const bus = createEventBus({ runId: "run-7" });
    const decisions: unknown[] = [];
    const events: string[] = [];
    bus.onAny("test", (type, event) => {
      if (type.startsWith("interaction:"))
        events.push(`${type} ${"action" in event ? event.action : ""}`.trim());
    });
    const dispose = wireInteraction(bus, {
      config,
      control: {
        vetoStory: () => {},
        requestPause: () => {},
        decide: (...args) => decisions.push(args),
        raiseCostLimit: () => 0,
        signal: never,
      },
      runDir: "/nonexistent",
      feature: "checkout",
      stories: { get: () => undefined },
      logger: silentLogger,
      warn: () => {},
      env: { GANTRY_TEST_WEBHOOK_SECRET: SECRET },
    });
    bus.emit("escalation:exhausted", { storyId: "US-9", attempts: 3 });
    await bus.flush();
    dispose();
    assert.ok(hook.received[0]?.signatureValid);
    assert.equal(hook.received[0]?.json.runId, "run-7");
    assert.equal(hook.received[0]?.json.feature, "checkout");
    assert.deepEqual(events, ["interaction:request", "interaction:response retry"]);
    assert.deepEqual(decisions, [["US-9", "human-review", "retry"]]);
  });
});
