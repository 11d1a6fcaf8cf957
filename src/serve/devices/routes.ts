import { answerRequest } from "../actions.js";
import { conditionalReply, EntityTags } from "../entity-tag.js";
import { BodyError, readBody } from "../guards.js";
import { RUN_ID_PATTERN } from "../run-files.js";
import { type RouteContext, sendJson, sendOutcome, sendReply, validBody } from "../server.js";
import type { RunView } from "../view-types.js";
import { type AuditRecord, createAuditLog } from "./audit.js";
import {
  DEVICE_HEADERS,
  DEVICE_ID_PATTERN,
  NONCE_PATTERN,
  publicKeyFromBase64,
  verifyFraming,
} from "./framing.js";
import { NonceStore } from "./nonces.js";
import { readRegistry, type Scope } from "./registry.js";

export interface DeviceRouteOptions {
  /** How far a timestamp may be from the server's clock, either way. */
  windowSeconds?: number;
  nonceCapacity?: number;
  warn: (line: string) => void;
  now?: () => number;
}

interface Verb {
  name: string;
  scope: Scope;
  runId?: string;
}

/** The only verbs a device has. Pause, stop, skip and free text are not among them (docs/serve.md). */
function verbOf(method: string, path: string): Verb | undefined {
  const rest = path.slice("/v1/device/".length);
  if (method === "GET" && rest === "runs") return { name: "GET runs", scope: "read" };
  const match = /^runs\/([^/]+)(\/answer)?$/.exec(rest);
  if (!match) return undefined;
  const runId = decodeURIComponent(match[1] as string);
  if (!RUN_ID_PATTERN.test(runId)) return undefined;
  if (method === "GET" && !match[2]) return { name: "GET runs/{id}", scope: "read", runId };
  if (method === "POST" && match[2]) return { name: "POST runs/{id}/answer", scope: "answer", runId };
  return undefined;
}

const header = (context: RouteContext, name: string): string | undefined => {
  const value = context.req.headers[name];
  return typeof value === "string" ? value : undefined;
};

/**
 * The signed device routes. Checks, in this order, each with its own refusal: unsigned, unknown device,
 * stale or future timestamp, bad signature, revoked, replayed nonce, nonce store full; then scope, then
 * the body's schema. Every request is written to the audit log with its outcome.
 */
export function startDeviceRoutes(root: string, options: DeviceRouteOptions) {
  const windowMs = (options.windowSeconds ?? 120) * 1000;
  const now = options.now ?? Date.now;
  const nonces = new NonceStore(root, options.nonceCapacity ?? 10_000);
  const audit = createAuditLog(root);
  let warned = false;
  /** Each run's redacted view as JSON, made again only when the run changed (its watcher's version). */
  const redactedCache = new Map<string, { version: number; json: string }>();
  const tags = new EntityTags();

  const routes = async (context: RouteContext): Promise<void> => {
    const method = context.req.method ?? "GET";
    const claimed = (header(context, DEVICE_HEADERS.device) ?? "-").trim().slice(0, 40);
    const verb = verbOf(method, context.path);
    const refuse = (status: number, outcome: string, message: string, name = verb?.name ?? "unknown") => {
      audit({ verb: name, device: claimed, status, outcome } satisfies AuditRecord);
      sendJson(context.res, status, { code: outcome, message });
    };
    if (!verb)
      return refuse(
        404,
        "unknown-verb",
        "a device may list runs, read one, and answer its question; nothing else",
        `${method} ?`,
      );

    let body: Buffer;
    try {
      body = await readBody(context.req);
    } catch (error) {
      if (error instanceof BodyError) return refuse(error.status, error.code, error.message);
      throw error;
    }
    const deviceId = header(context, DEVICE_HEADERS.device);
    const timestamp = header(context, DEVICE_HEADERS.timestamp);
    const nonce = header(context, DEVICE_HEADERS.nonce);
    const signature = header(context, DEVICE_HEADERS.signature);
    if (
      !deviceId ||
      !DEVICE_ID_PATTERN.test(deviceId) ||
      !timestamp ||
      !/^\d{1,12}$/.test(timestamp) ||
      !nonce ||
      !NONCE_PATTERN.test(nonce) ||
      !signature ||
      !/^[A-Za-z0-9+/]{86}==$/.test(signature)
    )
      return refuse(401, "unsigned", "expected X-Gantry-Device, -Timestamp, -Nonce and -Signature");
    const registry = readRegistry(root);
    if (registry.ignored && !warned) {
      warned = true;
      options.warn(`gantry serve: ${registry.ignored}`);
    }
    const device = registry.devices.find((d) => d.id === deviceId);
    const key = device ? publicKeyFromBase64(device.publicKey) : undefined;
    if (!device || !key) return refuse(401, "unknown-device", "no enrolled device with this id");
    const at = Number(timestamp) * 1000;
    if (at < now() - windowMs) return refuse(401, "stale-timestamp", "the timestamp is too old");
    if (at > now() + windowMs) return refuse(401, "future-timestamp", "the timestamp is in the future");
    const target = context.req.url ?? context.path;
    if (!verifyFraming(key, { method, target, body, deviceId, timestamp, nonce }, signature))
      return refuse(401, "bad-signature", "the signature does not verify");
    if (device.revokedAt) return refuse(403, "revoked", "this device was revoked");
    const taken = nonces.take(deviceId, nonce, at + windowMs, now());
    if (taken === "replayed") return refuse(409, "replayed-nonce", "this nonce was used already");
    if (taken === "full") return refuse(503, "nonce-store-full", "too many recent requests; try again later");
    if (!device.scopes.includes(verb.scope)) return refuse(403, "scope", `this device may not ${verb.scope}`);

    const done = (status: number, outcome: string) =>
      audit({ verb: verb.name, device: deviceId, status, outcome });
    /** A read, after every check: `304` when the device holds this copy (`If-None-Match`, not signed: it only spares the body). */
    const read = (key: string, json: string) => {
      const reply = conditionalReply(tags, context.req.headers["if-none-match"], key, json);
      done(reply.status, reply.status === 304 ? "not-modified" : "ok");
      sendReply(context.res, reply);
    };
    if (verb.name === "GET runs") {
      const list = context.hub.list().map(({ runId, feature, status, live, startedAt }) => ({
        runId,
        feature,
        status,
        live,
        startedAt,
      }));
      return read("", JSON.stringify(list));
    }
    const runId = verb.runId as string;
    if (verb.name === "GET runs/{id}") {
      const version = context.hub.watcher(runId)?.version;
      let cached = redactedCache.get(runId);
      if (version === undefined || cached?.version !== version) {
        const view = context.hub.view(runId);
        if (!view || version === undefined) return refuse(404, "unknown-run", `no run ${runId}`);
        cached = { version, json: JSON.stringify(redacted(view)) };
        redactedCache.set(runId, cached);
      }
      return read(runId, cached.json);
    }
    const answer = await validBody<{ requestId: string; action: string }>(context, "answer", body);
    if (!answer) return done(context.res.statusCode, "invalid-body");
    const outcome = answerRequest(context.hub, context.root, runId, answer, `device:${deviceId}`);
    done(outcome.status, outcome.code);
    sendOutcome(context.res, outcome);
  };
  return { routes, close: () => {} };
}

/** What a device sees of a run: ids, states, counts and the open question's options; no titles, no text, no log. */
export function redacted(view: RunView) {
  return {
    runId: view.runId,
    feature: view.feature,
    status: view.status,
    live: view.live,
    costUsd: view.costUsd,
    stories: view.stories.map((s) => ({
      id: s.id,
      status: s.status,
      tier: s.tier,
      attempts: s.attempts,
      passes: s.passes ?? 0,
      stage: s.stage,
    })),
    pending: view.pending
      .filter((q) => q.answerable)
      .map((q) => ({
        id: q.id,
        trigger: q.trigger,
        storyId: q.storyId,
        options: q.options,
        fallback: q.fallback,
        expiresAt: q.expiresAt,
      })),
  };
}
