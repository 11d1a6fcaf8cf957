import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { httpDate } from "./http-date.js";
import type { JsonReply } from "./token-routes.js";

const NOT_MODIFIED_COMMON =
  "cache-control: no-store\r\nx-content-type-options: nosniff\r\nx-frame-options: DENY\r\nreferrer-policy: no-referrer\r\n";
const COMMON = `${NOT_MODIFIED_COMMON}content-type: application/json; charset=utf-8\r\n`;

/**
 * Writes one answer, head and body, in one system call; a `304` as node:http sends it: no body, no type or
 * length. A cached read's body goes as the bytes kept with its tag (src/serve/entity-tag.ts), after the head
 * in one corked write: its 5-13 KB are neither copied into a new string with the head nor encoded again.
 */
export function writeAnswer(socket: Socket, reply: JsonReply): void {
  const tag = reply.etag === undefined ? "" : `etag: ${reply.etag}\r\n`;
  const common =
    reply.status === 304
      ? NOT_MODIFIED_COMMON
      : `${COMMON}content-length: ${reply.body?.length ?? Buffer.byteLength(reply.json)}\r\n`;
  const head = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ""}\r\n${common}${tag}date: ${httpDate()}\r\nconnection: keep-alive\r\nkeep-alive: timeout=5\r\n\r\n`;
  if (reply.status === 304 || reply.body === undefined) return void socket.write(head + reply.json);
  socket.cork();
  socket.write(head, "latin1");
  socket.write(reply.body);
  socket.uncork();
}
