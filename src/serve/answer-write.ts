import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { httpDate } from "./http-date.js";
import type { JsonReply } from "./token-routes.js";

const NOT_MODIFIED_COMMON =
  "cache-control: no-store\r\nx-content-type-options: nosniff\r\nx-frame-options: DENY\r\nreferrer-policy: no-referrer\r\n";
const COMMON = `${NOT_MODIFIED_COMMON}content-type: application/json; charset=utf-8\r\n`;

/**
 * Writes one answer, head and body, in one write; a `304` as node:http sends it: no body, no type or length.
 * An answer all ASCII (the head always is; a run's JSON nearly always) is written as latin1, the same bytes
 * as UTF-8 copied rather than encoded: encoding a run's view of 5-13 KB per answer was most of the write.
 */
export function writeAnswer(socket: Socket, reply: JsonReply): void {
  const tag = reply.etag === undefined ? "" : `etag: ${reply.etag}\r\n`;
  const bytes = reply.bytes ?? Buffer.byteLength(reply.json);
  const common = reply.status === 304 ? NOT_MODIFIED_COMMON : `${COMMON}content-length: ${bytes}\r\n`;
  socket.write(
    `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n${common}${tag}date: ${httpDate()}\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n${reply.json}`,
    bytes === reply.json.length ? "latin1" : "utf8",
  );
}
