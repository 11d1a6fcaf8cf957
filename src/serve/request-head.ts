import { MAX_BODY_BYTES } from "./guards.js";

/** One token-route request the fast lane read whole: the header values the checks and routes use, and its body. */
export interface FastRequest {
  method: "GET" | "POST";
  path: string;
  host: string | undefined;
  origin: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  ifNoneMatch: string | undefined;
  body: Buffer;
}

/** node:http's own limits on a request's head, kept by the fast lane. */
export const MAX_HEAD_BYTES = 16 * 1024;
const MAX_HEADERS = 50;

const REQUEST_LINE = /^(GET|POST) (\/[A-Za-z0-9_\-/]*) HTTP\/1\.1$/;
/** The routes the page and a client use: the run list, a run's view, the event stream, an answer, a control. */
const GET_TARGET = /^\/api\/(?:runs(?:\/[A-Za-z0-9_-]+)?|events)$/;
const POST_TARGET = /^\/api\/runs\/[A-Za-z0-9_-]+\/(?:answer|control)$/;
/** A header line: a token, a colon, a value of visible ASCII, spaces and tabs only (trimmed apart: no backtracking). */
const HEADER_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\x20-\x7e\t]*$/;
const DIGITS = /^\d{1,5}$/;

/** A header line's value (HEADER_LINE holds: the first colon ends the name), trimmed. */
const headerValue = (line: string, colon: number) => line.slice(colon + 1).trim();

/**
 * Reads one request's head, strictly: undefined for anything the fast lane does not answer itself, which
 * then goes to node:http whole (another route or method, HTTP/1.0, a duplicated header it reads, a body
 * without a plain Content-Length or over the bound, Transfer-Encoding, Expect, Upgrade, Connection other
 * than keep-alive, a device's X-Gantry-* header, anything not plain ASCII, a folded line). It therefore
 * never has to refuse a request node:http would read otherwise, and the boundary it finds between two
 * requests (a single Content-Length, no Transfer-Encoding) is the one node:http would find. The lines are
 * walked in place (no array of lines, no match arrays, a value taken only for the headers read): it runs
 * for every request the server answers.
 */
export function readHead(head: string): (Omit<FastRequest, "body"> & { length: number }) | undefined {
  let at = head.indexOf("\r\n");
  const line = REQUEST_LINE.exec(at < 0 ? head : head.slice(0, at));
  if (!line) return undefined;
  const method = line[1] as "GET" | "POST";
  const path = line[2] as string;
  if (!(method === "GET" ? GET_TARGET : POST_TARGET).test(path)) return undefined;
  let host: string | undefined;
  let origin: string | undefined;
  let authorization: string | undefined;
  let contentType: string | undefined;
  let declared: string | undefined;
  let ifNoneMatch: string | undefined;
  for (let count = 1; at >= 0; count++) {
    if (count > MAX_HEADERS) return undefined;
    const start = at + 2;
    at = head.indexOf("\r\n", start);
    const text = at < 0 ? head.slice(start) : head.slice(start, at);
    if (!HEADER_LINE.test(text)) return undefined;
    const colon = text.indexOf(":");
    const name = text.slice(0, colon).toLowerCase();
    switch (name) {
      case "host":
        if (host !== undefined) return undefined;
        host = headerValue(text, colon);
        break;
      case "origin":
        if (origin !== undefined) return undefined;
        origin = headerValue(text, colon);
        break;
      case "authorization":
        if (authorization !== undefined) return undefined;
        authorization = headerValue(text, colon);
        break;
      case "content-type":
        if (contentType !== undefined) return undefined;
        contentType = headerValue(text, colon);
        break;
      case "content-length":
        if (declared !== undefined) return undefined;
        declared = headerValue(text, colon);
        break;
      case "if-none-match":
        if (ifNoneMatch !== undefined) return undefined;
        ifNoneMatch = headerValue(text, colon);
        break;
      case "transfer-encoding":
      case "expect":
      case "upgrade":
        return undefined;
      case "connection":
        if (headerValue(text, colon).toLowerCase() !== "keep-alive") return undefined;
        break;
      default:
        if (name.startsWith("x-gantry-")) return undefined;
    }
  }
  if (declared !== undefined && !DIGITS.test(declared)) return undefined;
  const length = declared === undefined ? 0 : Number(declared);
  if (method === "GET" ? length !== 0 : declared === undefined || length > MAX_BODY_BYTES) return undefined;
  return { method, path, host, origin, authorization, contentType, ifNoneMatch, length };
}
