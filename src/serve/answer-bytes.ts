import { STATUS_CODES } from "node:http";
import { httpDate } from "./http-date.js";
import type { JsonReply } from "./token-routes.js";

const NOT_MODIFIED_COMMON =
  "cache-control: no-store\r\nx-content-type-options: nosniff\r\nx-frame-options: DENY\r\nreferrer-policy: no-referrer\r\n";
const COMMON = `${NOT_MODIFIED_COMMON}content-type: application/json; charset=utf-8\r\n`;

/** One answer, head and body, as the fast lane writes it; a `304` as node:http sends it: no body, no type or length. */
export function answerText(reply: JsonReply, date: string): string {
  const tag = reply.etag === undefined ? "" : `etag: ${reply.etag}\r\n`;
  const common =
    reply.status === 304
      ? NOT_MODIFIED_COMMON
      : `${COMMON}content-length: ${Buffer.byteLength(reply.json)}\r\n`;
  return `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n${common}${tag}date: ${date}\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n${reply.json}`;
}

/** Distinct answers kept within one second before they are all made again. */
const MAX_KEPT = 64;

/**
 * The bytes of the fast lane's answers, each made once per second (the Date header's) and written as they
 * are to every request given the same answer: under the serve bench's load most answers are one of a few
 * (a `304` for the copy every client holds, the run list, `401 no-token`, `404 no-pending-request`), and
 * putting a head together and encoding a view of 5-13 KB as UTF-8 per request was work done again for the
 * same bytes. Keyed by the JSON's text, then by status and tag: the same reply, byte for byte.
 */
export class AnswerBytes {
  private second = "";
  private readonly kept = new Map<string, Map<string, Buffer>>();
  private count = 0;

  of(reply: JsonReply): Buffer {
    const date = httpDate();
    if (date !== this.second || this.count >= MAX_KEPT) {
      this.kept.clear();
      this.count = 0;
      this.second = date;
    }
    let byHead = this.kept.get(reply.json);
    if (!byHead) {
      byHead = new Map();
      this.kept.set(reply.json, byHead);
    }
    const key = reply.etag === undefined ? String(reply.status) : `${reply.status} ${reply.etag}`;
    let bytes = byHead.get(key);
    if (!bytes) {
      bytes = Buffer.from(answerText(reply, date), "utf8");
      byHead.set(key, bytes);
      this.count += 1;
    }
    return bytes;
  }
}
