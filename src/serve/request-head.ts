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
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):([\x20-\x7e\t]*)$/;
const DIGITS = /^\d{1,5}$/;

/**
 * Reads one request's head, strictly: undefined for anything the fast lane does not answer itself, which
 * then goes to node:http whole (another route or method, HTTP/1.0, a duplicated header it reads, a body
 * without a plain Content-Length or over the bound, Transfer-Encoding, Expect, Upgrade, Connection other
 * than keep-alive, a device's X-Gantry-* header, anything not plain ASCII, a folded line). It therefore
 * never has to refuse a request node:http would read otherwise, and the boundary it finds between two
 * requests (a single Content-Length, no Transfer-Encoding) is the one node:http would find.
 */
export function readHead(head: string): (Omit<FastRequest, "body"> & { length: number }) | undefined {
  const lines = head.split("\r\n");
  const line = REQUEST_LINE.exec(lines[0] as string);
  if (!line) return undefined;
  const method = line[1] as "GET" | "POST";
  const path = line[2] as string;
  if (!(method === "GET" ? GET_TARGET : POST_TARGET).test(path)) return undefined;
  if (lines.length - 1 > MAX_HEADERS) return undefined;
  const seen: Record<string, string> = {};
  for (let i = 1; i < lines.length; i++) {
    const header = HEADER_LINE.exec(lines[i] as string);
    if (!header) return undefined;
    const name = (header[1] as string).toLowerCase();
    const value = (header[2] as string).trim();
    switch (name) {
      case "host":
      case "origin":
      case "authorization":
      case "content-type":
      case "content-length":
      case "if-none-match":
        if (name in seen) return undefined;
        seen[name] = value;
        break;
      case "transfer-encoding":
      case "expect":
      case "upgrade":
        return undefined;
      case "connection":
        if (value.toLowerCase() !== "keep-alive") return undefined;
        break;
      default:
        if (name.startsWith("x-gantry-")) return undefined;
    }
  }
  const declared = seen["content-length"];
  if (declared !== undefined && !DIGITS.test(declared)) return undefined;
  const length = declared === undefined ? 0 : Number(declared);
  if (method === "GET" ? length !== 0 : declared === undefined || length > MAX_BODY_BYTES) return undefined;
  return {
    method,
    path,
    host: seen.host,
    origin: seen.origin,
    authorization: seen.authorization,
    contentType: seen["content-type"],
    ifNoneMatch: seen["if-none-match"],
    length,
  };
}
