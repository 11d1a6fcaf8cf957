import { answerRequest, type Outcome, sendControl } from "./actions.js";
import type { BodySchema, BodyValidators } from "./body-schemas.js";
import { conditionalReply, type EntityTags } from "./entity-tag.js";
import { BodyError, parseJsonBody } from "./guards.js";
import type { RunHub } from "./hub.js";
import { RUN_ID_PATTERN } from "./run-files.js";

/** A token route's answer: its status and its JSON text (empty for a `304`), with the read's entity tag. */
export interface JsonReply {
  status: number;
  json: string;
  etag?: string;
}

/** What the token routes read of a request that passed the Host/Origin and token checks. */
export interface TokenRequest {
  method: string;
  path: string;
  contentType: string | undefined;
  /** A conditional read's `If-None-Match`: the tag of the copy the client holds. */
  ifNoneMatch: string | undefined;
  /** The body, bounded: read only by the routes that take one. */
  body(): Buffer | Promise<Buffer>;
}

export interface TokenRouteContext {
  hub: RunHub;
  root: string;
  validators: BodyValidators;
  tags: EntityTags;
}

export const jsonReply = (status: number, body: unknown): JsonReply => ({
  status,
  json: JSON.stringify(body),
});
const outcomeReply = (outcome: Outcome) =>
  jsonReply(outcome.status, { code: outcome.code, message: outcome.message });

const RUN_ROUTE = /^\/api\/runs\/([^/]+)(?:\/(answer|control))?$/;

/**
 * Every token route but the event stream, once the request passed the Host/Origin and token checks.
 */
export function tokenRoute(
  context: TokenRouteContext,
  request: TokenRequest,
): JsonReply | Promise<JsonReply> {
  const { hub, root } = context;
  const { method, path } = request;
  if (method === "GET" && path === "/api/runs")
    return conditionalReply(context.tags, request.ifNoneMatch, "", hub.listJson());
  const match = RUN_ROUTE.exec(path);
  const runId = match ? decodeURIComponent(match[1] as string) : undefined;
  if (!match || runId === undefined || !RUN_ID_PATTERN.test(runId))
    return jsonReply(404, { code: "not-found", message: "no such route" });
  const verb = match[2];
  if (method === "GET" && verb === undefined) {
    const json = hub.viewJson(runId);
    if (json === undefined) return jsonReply(404, { code: "unknown-run", message: `no run ${runId}` });
    return conditionalReply(context.tags, request.ifNoneMatch, runId, json);
  }
  if (method === "POST" && verb === "answer")
    return withBody<{ requestId: string; action: string }>(context, "answer", request, (body) =>
      answerRequest(hub, root, runId, body, "page"),
    );
  if (method === "POST" && verb === "control")
    return withBody<{ action: string; storyId?: string }>(context, "control", request, (body) =>
      sendControl(hub, root, runId, body, "page"),
    );
  return jsonReply(405, { code: "method-not-allowed", message: `${method} ${path}` });
}

/** Reads, parses and validates the body against one of schemas/serve/, then acts on it. */
function withBody<T>(
  context: TokenRouteContext,
  schema: BodySchema,
  request: TokenRequest,
  act: (body: T) => Outcome,
): JsonReply | Promise<JsonReply> {
  const decide = (bytes: Buffer): JsonReply => {
    let body: unknown;
    try {
      body = parseJsonBody(request.contentType, bytes);
    } catch (error) {
      return bodyErrorReply(error);
    }
    const problem = context.validators[schema](body);
    if (problem) return jsonReply(422, { code: "invalid-body", message: problem });
    return outcomeReply(act(body as T));
  };
  let bytes: Buffer | Promise<Buffer>;
  try {
    bytes = request.body();
  } catch (error) {
    return bodyErrorReply(error);
  }
  return Buffer.isBuffer(bytes) ? decide(bytes) : bytes.then(decide, bodyErrorReply);
}

/** A refused body (too big, not JSON) as its answer; anything else is the server's own failure. */
function bodyErrorReply(error: unknown): JsonReply {
  if (error instanceof BodyError)
    return jsonReply(error.status, { code: error.code, message: error.message });
  throw error;
}
