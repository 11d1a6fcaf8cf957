import type { Socket } from "node:net";
import { writeAnswer } from "./answer-write.js";
import { type FastRequest, MAX_HEAD_BYTES, readHead } from "./request-head.js";
import type { JsonReply } from "./token-routes.js";

export type { FastRequest };

export interface FastLaneOptions {
  /** Every check and route a request gets through node:http, on a request the fast lane read. */
  answer(request: FastRequest): JsonReply | Promise<JsonReply>;
  /** Gives the connection to node:http, with the bytes not answered yet (from the start of a request). */
  handOff(socket: Socket, rest: Buffer): void;
  /**
   * `GET /api/events`: the same checks, then the connection becomes an event stream (undefined), or the
   * refusal to answer (the wrong host or token, too many clients).
   */
  stream(request: FastRequest, socket: Socket): JsonReply | undefined;
  /** node:http's limits by default (tests make them short): the time to send a request, idle between two. */
  requestTimeoutMs?: number;
  keepAliveMs?: number;
}

/** node:http's own limits, kept by the fast lane: the time to send a request, idle between two. */
const REQUEST_TIMEOUT_MS = 10_000;
const KEEP_ALIVE_MS = 5_000;

const HEAD_END = Buffer.from("\r\n\r\n");

interface Connection {
  socket: Socket;
  /** Bytes read and not answered yet. */
  pending: Buffer | undefined;
  /** When the request in `pending` began arriving, or the last answer was written. */
  since: number;
  busy: boolean;
  /** The client has sent its last byte (a half-close): the connection ends once its answers are written. */
  ended: boolean;
  /** Takes the fast lane's listeners off the socket (before node:http gets it). */
  release(): void;
}

/**
 * The token routes' requests answered on the connection itself, without node:http's request and response
 * objects: under the serve bench's load (1,000 requests in a run) node:http's own per-request work was most
 * of the server's CPU. A connection starts here; the first request that is not a plainly formed token-route
 * request (the page, the event stream, the device routes, anything unusual) hands the connection, from that
 * request on, to node:http, which then serves it to its end. What a request is answered is decided by the
 * same checks and routes either way (`answer`).
 */
export class FastLane {
  private readonly connections = new Set<Connection>();
  /** Connections that became event streams: closed with the server, as node:http closes its own. */
  private readonly streams = new Set<Socket>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly requestTimeoutMs: number;
  private readonly keepAliveMs: number;
  /** Requests answered here, not by node:http. */
  answered = 0;

  constructor(private readonly options: FastLaneOptions) {
    this.requestTimeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    this.keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_MS;
    this.sweeper = setInterval(() => this.sweep(), Math.min(1000, this.keepAliveMs / 2));
    this.sweeper.unref();
  }

  take(socket: Socket): void {
    const onData = (chunk: Buffer) => {
      if (connection.pending) connection.pending = Buffer.concat([connection.pending, chunk]);
      else {
        connection.pending = chunk;
        connection.since = Date.now();
      }
      this.serve(connection);
    };
    const onError = () => socket.destroy();
    const onClose = () => this.connections.delete(connection);
    // As node:http does: a client that half-closes gets the answers to what it sent, then the end.
    const onEnd = () => {
      connection.ended = true;
      if (!connection.busy) socket.end();
    };
    const connection: Connection = {
      socket,
      pending: undefined,
      since: Date.now(),
      busy: false,
      ended: false,
      release: () => {
        socket.off("data", onData);
        socket.off("error", onError);
        socket.off("close", onClose);
        socket.off("end", onEnd);
      },
    };
    this.connections.add(connection);
    socket.on("data", onData);
    socket.on("error", onError);
    socket.once("close", onClose);
    socket.once("end", onEnd);
  }

  /** Closes every connection the fast lane holds (the server is stopping). */
  close(): void {
    clearInterval(this.sweeper);
    for (const connection of this.connections) connection.socket.destroy();
    this.connections.clear();
    for (const socket of this.streams) socket.destroy();
    this.streams.clear();
  }

  get size(): number {
    return this.connections.size;
  }

  private serve(connection: Connection): void {
    const { socket } = connection;
    while (connection.pending && !connection.busy) {
      const bytes: Buffer = connection.pending;
      if (bytes.length === 0) {
        connection.pending = undefined;
        break;
      }
      const end = bytes.indexOf(HEAD_END);
      if (end < 0) {
        if (bytes.length > MAX_HEAD_BYTES) this.handOff(connection);
        return;
      }
      const head = end <= MAX_HEAD_BYTES ? readHead(bytes.toString("latin1", 0, end)) : undefined;
      if (!head) {
        this.handOff(connection);
        return;
      }
      const total = end + 4 + head.length;
      if (bytes.length < total) return;
      connection.pending = bytes.length > total ? bytes.subarray(total) : undefined;
      connection.since = Date.now();
      this.answered += 1;
      const request: FastRequest = {
        method: head.method,
        path: head.path,
        host: head.host,
        origin: head.origin,
        authorization: head.authorization,
        contentType: head.contentType,
        ifNoneMatch: head.ifNoneMatch,
        body: bytes.subarray(end + 4, total),
      };
      let reply: JsonReply | Promise<JsonReply> | undefined;
      try {
        reply =
          request.path === "/api/events"
            ? this.options.stream(request, socket)
            : this.options.answer(request);
        if (reply === undefined) {
          this.becomeStream(connection);
          return;
        }
      } catch (error) {
        reply = internal(error);
      }
      if (reply instanceof Promise) {
        // Nothing more is read while the answer is made: what a client pipelines meanwhile waits in the
        // kernel's buffers (bounded), not in `pending`.
        connection.busy = true;
        socket.pause();
        reply.catch(internal).then((settled) => {
          connection.busy = false;
          if (!socket.destroyed) writeAnswer(socket, settled);
          socket.resume();
          this.serve(connection);
          if (connection.ended && !connection.busy) socket.end();
        });
        return;
      }
      writeAnswer(socket, reply);
      // A client that sends and does not read: stop reading from it until it has taken what it was sent.
      if (socket.writableNeedDrain && connection.pending) {
        connection.busy = true;
        socket.pause();
        socket.once("drain", () => {
          connection.busy = false;
          socket.resume();
          this.serve(connection);
        });
        return;
      }
    }
  }

  /**
   * The connection now carries an event stream (written by the hub): it leaves the fast lane. What the
   * client sends after its request is read and dropped, as node:http queues it behind an answer that never
   * ends; the stream ends when the client does.
   */
  private becomeStream(connection: Connection): void {
    const { socket } = connection;
    connection.release();
    this.connections.delete(connection);
    connection.pending = undefined;
    this.streams.add(socket);
    socket.once("close", () => this.streams.delete(socket));
    socket.on("data", () => {});
    socket.on("error", () => socket.destroy());
    socket.once("end", () => socket.destroy());
  }

  private handOff(connection: Connection): void {
    const { socket } = connection;
    connection.release();
    this.connections.delete(connection);
    const rest = connection.pending ?? Buffer.alloc(0);
    connection.pending = undefined;
    socket.pause();
    this.options.handOff(socket, rest);
  }

  /** node:http's timeouts, for the connections still here: 5 s idle between requests, 10 s to send one. */
  private sweep(): void {
    const now = Date.now();
    for (const connection of this.connections) {
      const limit = connection.pending || connection.busy ? this.requestTimeoutMs : this.keepAliveMs;
      if (now - connection.since <= limit) continue;
      this.connections.delete(connection);
      if (!connection.pending || connection.busy) {
        connection.socket.destroy();
        continue;
      }
      // As node:http does when a request is not sent in time: 408, then the connection closes.
      connection.socket.end("HTTP/1.1 408 Request Timeout\r\nconnection: close\r\n\r\n");
      setTimeout(() => connection.socket.destroy(), 1000).unref();
    }
  }
}

function internal(error: unknown): JsonReply {
  return {
    status: 500,
    json: JSON.stringify({
      code: "internal",
      message: error instanceof Error ? error.message : String(error),
    }),
  };
}
