import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { httpDate } from "./http-date.js";

/** Some event-stream frames, encoded once, in the forms the clients need (chunked framing made once too). */
export class FrameBytes {
  private framed: Buffer | undefined;

  constructor(readonly bytes: Buffer) {}

  /** The bytes as one HTTP/1.1 chunk: the size in hex, CRLF, the bytes, CRLF. */
  get chunk(): Buffer {
    this.framed ??= Buffer.concat([Buffer.from(`${this.bytes.length.toString(16)}\r\n`), this.bytes, CRLF]);
    return this.framed;
  }
}
const CRLF = Buffer.from("\r\n");

/** One client of the event stream, whichever way its request was read. */
export interface StreamClient {
  /** Writes the answer's head (200, text/event-stream). */
  open(): void;
  send(frames: FrameBytes): void;
  /** Bytes written and not yet taken by the client. */
  readonly waiting: number;
  onClose(listener: () => void): void;
  end(): void;
  destroy(): void;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  connection: "keep-alive",
};

/** A stream answered through node:http (the request came that way). */
export function responseStream(res: ServerResponse): StreamClient {
  return {
    open: () => res.writeHead(200, SSE_HEADERS),
    send: (frames) => res.write(frames.bytes),
    get waiting() {
      return res.writableLength;
    },
    onClose: (listener) => res.on("close", listener),
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
}

/**
 * A stream written on the connection itself (the fast lane read its request, src/serve/fast-lane.ts): the same
 * head node:http writes for responseStream, chunked, and each broadcast's one chunk to every such client.
 */
export function socketStream(socket: Socket): StreamClient {
  return {
    open: () =>
      socket.write(
        `HTTP/1.1 200 OK\r\n${Object.entries(SSE_HEADERS)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("")}date: ${httpDate()}\r\ntransfer-encoding: chunked\r\n\r\n`,
      ),
    send: (frames) => socket.write(frames.chunk),
    get waiting() {
      return socket.writableLength;
    },
    onClose: (listener) => socket.once("close", listener),
    end: () => socket.end("0\r\n\r\n"),
    destroy: () => socket.destroy(),
  };
}
