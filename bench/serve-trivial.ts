/**
 * The floor of the serve bench's traffic: a server that answers every HTTP/1.1 request on a kept-alive
 * connection with the same fixed bytes, checking nothing, reading nothing from disk, with no event stream.
 * The serve bench's clients (bench/serve-load.ts, requests only) against it cost the run what the traffic
 * itself costs (the clients, loopback TCP, the wake-ups), whatever a real server does per request.
 * Prints a URL in `gantry serve`'s form, then answers until killed. Run it under SCHED_IDLE at niceness 19,
 * as `gantry serve` runs.
 *
 *   node --import tsx bench/serve-trivial.ts [bodyBytes]
 */
import { createServer } from "node:net";

const size = Number(process.argv[2] ?? 64);
const body = `{"ok":true,"pad":"${"x".repeat(Math.max(0, size - 18))}"}`;
const answer = Buffer.from(
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`,
);
const HEAD_END = Buffer.from("\r\n\r\n");

const server = createServer((socket) => {
  let pending: Buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    const out: Buffer[] = [];
    for (;;) {
      const end = pending.indexOf(HEAD_END);
      if (end < 0) break;
      const length = Number(/content-length:\s*(\d+)/i.exec(pending.toString("latin1", 0, end))?.[1] ?? 0);
      if (pending.length < end + 4 + length) break;
      pending = pending.subarray(end + 4 + length);
      out.push(answer);
    }
    if (out.length) socket.write(out.length === 1 ? answer : Buffer.concat(out));
  });
  socket.on("error", () => socket.destroy());
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`http://127.0.0.1:${port}/#token=trivial\n`);
});
process.on("SIGTERM", () => process.exit(0));
