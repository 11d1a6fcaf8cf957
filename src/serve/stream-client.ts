import type { ServerResponse } from "node:http";

/** One client of the event stream. */
export interface StreamClient {
  /** Writes the answer's head (200, text/event-stream). */
  open(): void;
  send(frames: Buffer): void;
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

/** The event stream answered on a node:http response. */
export function responseStream(res: ServerResponse): StreamClient {
  return {
    open: () => res.writeHead(200, SSE_HEADERS),
    send: (frames) => res.write(frames),
    get waiting() {
      return res.writableLength;
    },
    onClose: (listener) => res.on("close", listener),
    end: () => res.end(),
    destroy: () => res.destroy(),
  };
}
