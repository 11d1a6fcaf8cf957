import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Outcome } from "./actions.js";
import { type BodySchema, type BodyValidators, loadBodyValidators } from "./body-schemas.js";
import { EntityTags } from "./entity-tag.js";
import { BodyError, checkOrigin, hasToken, ownHosts, parseJson, readBody, tokenBytes } from "./guards.js";
import { RunHub } from "./hub.js";
import { PAGE_CSP, PAGE_HTML } from "./page.js";
import { responseStream } from "./stream-client.js";
import { type JsonReply, jsonReply, tokenRoute } from "./token-routes.js";

export interface ServeOptions {
  root: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  token: string;
  pollMs?: number;
  maxClients?: number;
  /** Routes under /v1/device/, when devices are served (src/serve/devices/routes.ts). */
  deviceRoutes?: DeviceRoutes;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  hub: RunHub;
  root: string;
  validators: BodyValidators;
  path: string;
}

export type DeviceRoutes = (context: RouteContext) => Promise<void>;

export interface ServeHandle {
  url: string;
  port: number;
  hub: RunHub;
  close(): Promise<void>;
}

/** Headers on every answer: nothing cached, nothing framed, nothing sniffed. */
const COMMON = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** JSON already serialized (a cached view), sent as sendJson sends it. */
export function sendJsonText(res: ServerResponse, status: number, json: string): void {
  if (res.headersSent) return void res.end();
  send(res, status, "application/json; charset=utf-8", json);
}

/** A whole answer with its length said up front (no chunked framing), in one write. */
function send(res: ServerResponse, status: number, type: string, body: string, extra: object = {}): void {
  res.writeHead(status, {
    ...COMMON,
    "content-type": type,
    "content-length": Buffer.byteLength(body),
    ...extra,
  });
  res.end(body);
}

/** A token route's answer; a `304` with its tag and no body, type or length (node:http sends none). */
export function sendReply(res: ServerResponse, reply: JsonReply): void {
  const tag = reply.etag === undefined ? {} : { etag: reply.etag };
  if (res.headersSent) return void res.end();
  if (reply.status === 304) {
    res.writeHead(304, { ...COMMON, ...tag });
    return void res.end();
  }
  send(res, reply.status, "application/json; charset=utf-8", reply.json, tag);
}

const hostRefusal = (refused: string) =>
  jsonReply(refused === "bad-host" ? 421 : 403, {
    code: refused,
    message: "not this server's own host or origin",
  });
const TOO_MANY_CLIENTS = jsonReply(503, {
  code: "too-many-clients",
  message: "the event stream's client limit is reached",
});
const NO_TOKEN = jsonReply(401, { code: "no-token", message: "missing or wrong bearer token" });

export const sendOutcome = (res: ServerResponse, outcome: Outcome) =>
  sendJson(res, outcome.status, { code: outcome.code, message: outcome.message });

/** Reads, parses and validates a body against one of schemas/serve/; undefined once a refusal is sent. */
export async function validBody<T>(
  context: RouteContext,
  schema: BodySchema,
  bytes?: Buffer,
): Promise<T | undefined> {
  try {
    const body = parseJson(context.req, bytes ?? (await readBody(context.req)));
    const problem = context.validators[schema](body);
    if (problem) {
      sendJson(context.res, 422, { code: "invalid-body", message: problem });
      return undefined;
    }
    return body as T;
  } catch (error) {
    if (error instanceof BodyError) {
      sendJson(context.res, error.status, { code: error.code, message: error.message });
      return undefined;
    }
    throw error;
  }
}

/**
 * `gantry serve`'s HTTP server: the page, the token-checked routes it uses, and (when enabled) the
 * signed device routes. Host and Origin are checked before anything else; a bearer token is never
 * accepted on a device route and a device signature never on a token route.
 */
export async function startServer(options: ServeOptions): Promise<ServeHandle> {
  const hub = new RunHub(options.root, {
    pollMs: options.pollMs ?? 500,
    maxClients: options.maxClients ?? 64,
  });
  const validators = loadBodyValidators();
  const token = tokenBytes(options.token);
  let hosts = new Set<string>();
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      sendJson(res, 500, {
        code: "internal",
        message: error instanceof Error ? error.message : String(error),
      });
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.maxHeadersCount = 50;
  const routes = { hub, root: options.root, validators, tags: new EntityTags() };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const refused = checkOrigin(req, hosts);
    if (refused) return sendReply(res, hostRefusal(refused));
    const path = pathOf(req.url ?? "/");
    const context: RouteContext = { req, res, hub, root: options.root, validators, path };
    if (path.startsWith("/v1/device/")) {
      if (req.headers.authorization !== undefined)
        return sendJson(res, 401, {
          code: "token-on-device-route",
          message: "device routes take a signature, never the bearer token",
        });
      if (!options.deviceRoutes)
        return sendJson(res, 404, { code: "unknown-verb", message: "no device routes" });
      return options.deviceRoutes(context);
    }
    if (req.method === "GET" && path === "/") {
      return send(res, 200, "text/html; charset=utf-8", PAGE_HTML, { "content-security-policy": PAGE_CSP });
    }
    if (Object.keys(req.headers).some((name) => name.startsWith("x-gantry-")))
      return sendJson(res, 401, {
        code: "signature-on-token-route",
        message: "token routes take the bearer token, never a device signature",
      });
    if (!hasToken(req, token)) return sendReply(res, NO_TOKEN);
    const method = req.method ?? "GET";
    if (method === "GET" && path === "/api/events") {
      if (!hub.subscribe(responseStream(res))) sendReply(res, TOO_MANY_CLIENTS);
      return;
    }
    const contentType = req.headers["content-type"];
    const ifNoneMatch = req.headers["if-none-match"];
    return sendReply(
      res,
      await tokenRoute(routes, { method, path, contentType, ifNoneMatch, body: () => readBody(req) }),
    );
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  hosts = ownHosts(options.host, port);
  hub.start();
  const shownHost = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${shownHost}:${port}/`,
    port,
    hub,
    close: () =>
      new Promise<void>((resolve) => {
        hub.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A plain target (letters, digits, `-`, `_`, `/`) is its own path; any other is read by the URL parser. */
const PLAIN_TARGET = /^\/(?!\/)[A-Za-z0-9_\-/]*$/;
export const pathOf = (target: string) =>
  PLAIN_TARGET.test(target) ? target : new URL(target, "http://server.invalid").pathname;
