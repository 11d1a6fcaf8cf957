import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export const MAX_BODY_BYTES = 4096;

/** The Host values this server answers to: its own address and port (and localhost for 127.0.0.1). */
export function ownHosts(host: string, port: number): Set<string> {
  const hosts = new Set([`${host}:${port}`]);
  if (host === "127.0.0.1") hosts.add(`localhost:${port}`);
  if (host.includes(":")) hosts.add(`[${host}]:${port}`);
  return hosts;
}

/**
 * DNS rebinding and cross-site requests: a Host that is not ours, or an Origin (when the browser sends
 * one) that is not ours, is refused before anything else is looked at.
 */
export const checkOrigin = (req: IncomingMessage, hosts: Set<string>) =>
  checkHostOrigin(req.headers.host, req.headers.origin, hosts);

/** checkOrigin on the two header values. */
export function checkHostOrigin(
  host: string | undefined,
  origin: string | undefined,
  hosts: Set<string>,
): string | undefined {
  if (!host || !hosts.has(host.toLowerCase())) return "bad-host";
  if (origin !== undefined && !(origin.startsWith("http://") && hosts.has(origin.slice(7).toLowerCase())))
    return "bad-origin";
  return undefined;
}

/** The token as it is compared: its bytes, taken once when the server starts. */
export const tokenBytes = (text: string) => Buffer.from(text, "utf8");

/**
 * `Authorization: Bearer <token>`, compared in constant time. A token of another length is refused before
 * the comparison: the length is not the secret (every token createToken makes has the same).
 */
export const hasToken = (req: IncomingMessage, token: Buffer) =>
  bearerMatches(req.headers.authorization, token);

/** hasToken on the Authorization header's value. */
export function bearerMatches(header: string | undefined, token: Buffer): boolean {
  if (!header?.startsWith("Bearer ")) return false;
  const presented = Buffer.from(header.slice(7).trim(), "utf8");
  return presented.length === token.length && timingSafeEqual(presented, token);
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The request's bytes, at most `MAX_BODY_BYTES`; a JSON content type is required for any body. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new BodyError(413, "body-too-large", `body over ${limit} bytes`);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.off("data", onData);
      req.destroy();
      reject(new BodyError(413, "body-too-large", `body over ${limit} bytes`));
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks, size)));
    req.once("error", reject);
    req.once("close", () => {
      if (!req.complete) reject(new Error("the request was aborted before its body ended"));
    });
  });
}

/** Parses a JSON body; the content type must say JSON (a form post from another page cannot). */
export const parseJson = (req: IncomingMessage, body: Buffer) =>
  parseJsonBody(req.headers["content-type"], body);

/** parseJson on the Content-Type header's value. */
export function parseJsonBody(contentType: string | undefined, body: Buffer): unknown {
  const type = contentType ?? "";
  if (!/^application\/json(;|$)/i.test(type))
    throw new BodyError(415, "not-json", "expected content-type application/json");
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    throw new BodyError(400, "bad-json", "the body is not JSON");
  }
}
