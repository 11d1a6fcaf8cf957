import { connect } from "node:net";

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `bytes` on one new connection and reads `count` answers (each with a Content-Length). */
export function raw(port: number, bytes: string, count: number): Promise<RawReply[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let buffer = Buffer.alloc(0);
    const replies: RawReply[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${replies.length} of ${count} answers to ${JSON.stringify(bytes.slice(0, 80))}`));
    }, 5000);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) break;
        const [line, ...lines] = buffer.subarray(0, end).toString("latin1").split("\r\n");
        const headers: Record<string, string> = {};
        for (const header of lines) {
          const colon = header.indexOf(":");
          headers[header.slice(0, colon).toLowerCase()] = header.slice(colon + 1).trim();
        }
        const status = Number(line?.split(" ")[1]);
        const length = status === 304 ? 0 : Number(headers["content-length"] ?? 0);
        if (buffer.length < end + 4 + length) break;
        replies.push({
          status,
          headers,
          body: buffer.subarray(end + 4, end + 4 + length).toString("utf8"),
        });
        buffer = buffer.subarray(end + 4 + length);
      }
      if (replies.length >= count) {
        clearTimeout(timer);
        socket.destroy();
        resolve(replies);
      }
    });
    socket.on("error", reject);
    socket.write(bytes);
  });
}

export const request = (method: string, target: string, headers: Record<string, string>, body?: string) =>
  `${method} ${target} HTTP/1.1\r\n${Object.entries({
    ...headers,
    ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }),
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n${body ?? ""}`;
