import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { InteractionAction } from "../../config/schema.js";
import { within } from "../../process/timeout.js";
import type { Channel, ChannelReply, InteractionRequest } from "../broker.js";

export const SIGNATURE_HEADER = "x-gantry-signature";
const MAX_BODY = 64 * 1024;

export interface WebhookChannelOptions {
  url: string;
  /** The HMAC-SHA256 key; undefined when the environment variable is not set: nothing is sent then. */
  secret: string | undefined;
  /** Named in messages. */
  secretEnv: string;
  /** Where signed answers to `{"pending": true}` may be POSTed, on 127.0.0.1; 0 picks a free port. */
  callbackPort?: number;
  /** The POST itself. */
  postTimeoutMs: number;
}

/** `sha256=<hex>` of the exact bytes of `body`. */
export function sign(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** Constant-time comparison of a received `X-Gantry-Signature` with the body's own. */
export function verify(secret: string, body: string | Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface Waiter {
  options: InteractionAction[];
  resolve: (reply: ChannelReply) => void;
}

/**
 * POSTs the request, signed, to `url`. The answer is the response body's `{"action": ...}`, or, when it
 * says `{"pending": true}`, a later signed POST `{"id", "action", "respondedBy"?}` to the callback server.
 * A callback with a bad signature is refused (401) and changes nothing.
 */
export function createWebhookChannel(options: WebhookChannelOptions): Channel & {
  /** The callback address, once the server listens (started by the first question). */
  callbackUrl(): Promise<string | undefined>;
} {
  const waiters = new Map<string, Waiter>();
  let server: Promise<{ server: Server; url: string }> | undefined;

  const listen = () => {
    if (options.callbackPort === undefined || options.secret === undefined) return undefined;
    if (!server) {
      server = startCallbackServer(options.callbackPort, options.secret, waiters);
      server.catch(() => {
        server = undefined; // the next question tries again (the port may be free by then)
      });
    }
    return server;
  };

  const post = async (request: InteractionRequest, signal: AbortSignal): Promise<ChannelReply> => {
    if (options.secret === undefined) {
      return { unanswered: `the environment variable ${options.secretEnv} is not set; nothing was sent` };
    }
    const callback = await listen();
    const body = JSON.stringify({ ...request, ...(callback ? { callbackUrl: callback.url } : {}) });
    let response: Response;
    try {
      response = await fetch(options.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "gantry",
          "x-gantry-event": "interaction:request",
          [SIGNATURE_HEADER]: sign(options.secret, body),
        },
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(options.postTimeoutMs)]),
      });
    } catch (error) {
      if (signal.aborted) return { unanswered: "timeout" };
      return { unanswered: `POST ${options.url} failed: ${error instanceof Error ? error.message : error}` };
    }
    const text = await response.text().catch(() => "");
    if (!response.ok) return { unanswered: `POST ${options.url} answered HTTP ${response.status}` };
    let answer: { action?: unknown; pending?: unknown; respondedBy?: unknown } = {};
    try {
      answer = text.trim() ? JSON.parse(text) : {};
    } catch {
      return { unanswered: `POST ${options.url} answered a body that is not JSON` };
    }
    if (typeof answer.action === "string")
      return { action: answer.action, respondedBy: who(answer.respondedBy) };
    if (answer.pending === true) return { unanswered: "pending" };
    return { unanswered: `POST ${options.url} answered neither {"action"} nor {"pending": true}` };
  };

  return {
    name: "webhook",
    async callbackUrl() {
      return (await listen())?.url;
    },
    async notify(request, signal) {
      await post(request, signal);
    },
    async ask(request, signal) {
      // Registered before the POST: the receiver may call back before it has answered the POST.
      let resolveCallback: (reply: ChannelReply) => void = () => {};
      const callback = new Promise<ChannelReply>((resolve) => {
        resolveCallback = resolve;
      });
      waiters.set(request.id, { options: request.options, resolve: resolveCallback });
      try {
        const reply = await post(request, signal);
        if (!("unanswered" in reply) || reply.unanswered !== "pending") return reply;
        if (options.callbackPort === undefined) {
          return {
            unanswered: "the webhook answered pending, but interaction.webhook.callbackPort is not set",
          };
        }
        const outcome = await within(callback, { signal });
        return outcome.kind === "value" ? outcome.value : { unanswered: "timeout" };
      } finally {
        waiters.delete(request.id);
      }
    },
    close() {
      for (const waiter of waiters.values()) waiter.resolve({ unanswered: "interrupted" });
      waiters.clear();
      void server?.then(({ server: s }) => {
        s.close();
        s.closeAllConnections();
      });
    },
  };
}

const who = (respondedBy: unknown) =>
  typeof respondedBy === "string" && respondedBy.trim() ? `webhook:${respondedBy.trim()}` : "webhook";

function startCallbackServer(
  port: number,
  secret: string,
  waiters: Map<string, Waiter>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    void handleCallback(req, res, secret, waiters);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      server.unref(); // a waiting callback server never keeps the process alive on its own
      const { port: bound } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${bound}/interaction` });
    });
  });
}

async function handleCallback(
  req: IncomingMessage,
  res: ServerResponse,
  secret: string,
  waiters: Map<string, Waiter>,
): Promise<void> {
  const reply = (status: number, body: object) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  if (req.method !== "POST") return reply(405, { error: "expected POST" });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) return reply(413, { error: `body over ${MAX_BODY} bytes` });
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const header = req.headers[SIGNATURE_HEADER];
  if (!verify(secret, body, Array.isArray(header) ? header[0] : header)) {
    return reply(401, { error: "bad or missing X-Gantry-Signature" });
  }
  let answer: { id?: unknown; action?: unknown; respondedBy?: unknown };
  try {
    answer = JSON.parse(body.toString("utf8"));
  } catch {
    return reply(400, { error: "body is not JSON" });
  }
  const waiter = typeof answer.id === "string" ? waiters.get(answer.id) : undefined;
  if (!waiter) return reply(404, { error: "no open interaction with that id" });
  const action = waiter.options.find((option) => option === answer.action);
  if (!action) return reply(422, { error: `expected action one of ${waiter.options.join(", ")}` });
  waiters.delete(answer.id as string);
  waiter.resolve({ action, respondedBy: who(answer.respondedBy) });
  reply(200, { ok: true });
}
