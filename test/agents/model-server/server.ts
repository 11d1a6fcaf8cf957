/**
 * A scripted model server on 127.0.0.1 (a random port) that speaks enough of Anthropic Messages, OpenAI
 * Responses and the Gemini API for a real agent CLI to play a script of turns (script.ts; by default one
 * coding turn), answers with a fault when told to (an HTTP error, a hang, a dropped connection), and
 * records every request it was sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import { anthropicAnswer, anthropicError } from "./anthropic.js";
import { geminiAnswer, geminiError } from "./gemini.js";
import { responsesAnswer, responsesError } from "./openai.js";
import { CODING_SCRIPT, type Script } from "./script.js";
import type { Answer, Json } from "./wire.js";

export type Provider = "anthropic" | "openai" | "gemini";

export type Fault =
  | { kind: "status"; status: 401 | 429 | 500 | 529; times?: number }
  | { kind: "hang"; times?: number }
  | { kind: "drop"; times?: number };

export interface Recorded {
  provider: Provider | "other";
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The request body as JSON, or `{}` when it was not JSON. */
  body: Json;
  /**
   * What the server answered: a step of the script, `side` (a call with no file tools), `unmatched` (no
   * turn of the script answers it), or the fault.
   */
  answered: string;
  /** The script's turn that answered it. */
  turn?: string;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  requests: Recorded[];
  /** Answer the next model calls (`times` of them, default all) with `fault`; `undefined` clears it. */
  setFault(fault: Fault | undefined): void;
  /** Plays `script` from the next request on; `undefined` puts back the coding turn. */
  setScript(script: Script | undefined): void;
  close(): Promise<void>;
}

export function providerOf(path: string): Provider | "other" {
  if (/^\/(v1\/)?messages/.test(path)) return "anthropic";
  if (/^\/(v1\/)?responses/.test(path)) return "openai";
  if (/^\/v1(beta)?\/models\/[^/]+:/.test(path)) return "gemini";
  return "other";
}

export async function startModelServer(): Promise<ModelServer> {
  const requests: Recorded[] = [];
  const sockets = new Set<Socket>();
  let fault: (Fault & { left: number }) | undefined;
  let script: Script = CODING_SCRIPT;
  const server = createServer((req, res) => {
    readBody(req).then((raw) => {
      const path = req.url ?? "/";
      const provider = providerOf(path.split("?")[0] ?? path);
      const text = decoded(raw, req.headers["content-encoding"]);
      const body = parseJson(text);
      const record: Recorded = {
        provider,
        method: req.method ?? "GET",
        path,
        headers: req.headers,
        body,
        answered: "",
      };
      requests.push(record);
      const modelCall = provider !== "other" && !/count_?tokens/i.test(path);
      if (modelCall && fault && fault.left > 0) {
        fault.left -= 1;
        record.answered = fault.kind === "status" ? String(fault.status) : fault.kind;
        return answerFault(fault, provider as Provider, req, res);
      }
      const answer = answerFor(provider, path, body, text, script);
      record.answered = answer ? (answer.step ?? "json") : "404";
      if (answer?.turn) record.turn = answer.turn;
      if (!answer) {
        res.writeHead(provider === "other" && req.method === "HEAD" ? 200 : 404, {
          "content-type": "application/json",
        });
        return res.end(
          req.method === "HEAD" ? undefined : JSON.stringify({ error: { message: `no route ${path}` } }),
        );
      }
      send(res, answer);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFault(next) {
      fault = next ? { ...next, left: next.times ?? Number.POSITIVE_INFINITY } : undefined;
    },
    setScript(next) {
      script = next ?? CODING_SCRIPT;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function answerFor(
  provider: Provider | "other",
  path: string,
  body: Json,
  text: string,
  script: Script,
): Answer | undefined {
  if (provider === "anthropic") return anthropicAnswer(path, body, text, script);
  if (provider === "openai") return responsesAnswer(body, text, script);
  if (provider === "gemini") return geminiAnswer(path, body, text, script);
  return undefined;
}

function answerFault(fault: Fault, provider: Provider, req: IncomingMessage, res: ServerResponse): void {
  if (fault.kind === "hang") {
    // Headers never come; the CLI's own timeout or gantry's ends it. The socket is destroyed on close().
    return;
  }
  if (fault.kind === "drop") {
    req.socket.destroy();
    return;
  }
  const body =
    provider === "anthropic"
      ? anthropicError(fault.status)
      : provider === "openai"
        ? responsesError(fault.status)
        : geminiError(fault.status);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (fault.status === 429) headers["retry-after"] = "1";
  res.writeHead(fault.status, headers);
  res.end(JSON.stringify(body));
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer.kind === "json") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.body));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const { event, data } of answer.events) {
    res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve(Buffer.concat(chunks)));
  });
}

function decoded(raw: Buffer, encoding: string | string[] | undefined): string {
  try {
    if (encoding === "gzip") return gunzipSync(raw).toString("utf8");
    if (encoding === "br") return brotliDecompressSync(raw).toString("utf8");
    if (encoding === "deflate") return inflateSync(raw).toString("utf8");
  } catch {
    return "";
  }
  return raw.toString("utf8");
}

function parseJson(text: string): Json {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {};
  }
}
