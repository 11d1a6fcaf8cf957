/**
 * The serve bench's clients, in a process of their own: 50 page clients reading the event stream and
 * 1,000 token-checked requests spread over about `spanMs`. In real use these sit on other machines (a
 * phone, a browser elsewhere); the bench runs them at `nice 19` so they take only the CPU the run and the
 * server leave. Prints `ready` once every client's stream is open, starts the requests on a `go` line on
 * stdin, and prints one JSON line `{sent, failed, read, cpuMs, answeredInRun, latency, notModified}` (its CPU since `go`;
 * the requests answered before stdin closed; the answers' latency, p50/p95/max ms; the reads answered 304) when stdin closes (the
 * bench closes it when the run has ended).
 *
 *   node --import tsx bench/serve-load.ts <url> <token> <spanMs> [clients] [requests]
 *
 * `clients` and `requests` (default 50 and 1000) let the bench measure the two halves of the load apart.
 * BENCH_SERVE_CONDITIONAL=1: the reads (run list, run view) carry `If-None-Match` with the ETag of the
 * last answer to the same read, as a browser's or a phone's cache sends it. BENCH_SERVE_BURST=N: the
 * requests go N at a time back to back (N/2 on each socket), the bursts spread over the same span.
 */
import { setMaxListeners } from "node:events";
import { Agent, request } from "node:http";
import { connect, type Socket } from "node:net";

const [url, token, span, clientsArg = "50", requestsArg = "1000"] = process.argv.slice(2);
const CLIENTS = Number(clientsArg);
const REQUESTS = Number(requestsArg);
if (!url || !token || !span || !Number.isInteger(CLIENTS) || !Number.isInteger(REQUESTS)) {
  process.stderr.write("usage: serve-load.ts <url> <token> <spanMs> [clients] [requests]\n");
  process.exit(2);
}
if (CLIENTS === 0) process.stdout.write("ready\n");
const auth = { authorization: `Bearer ${token}` };
const CONDITIONAL = process.env.BENCH_SERVE_CONDITIONAL === "1";
const BURST = Math.max(2, Number(process.env.BENCH_SERVE_BURST ?? 2));
const stop = new AbortController();
setMaxListeners(CLIENTS + 1, stop.signal);

/**
 * Not fetch: fetch (undici, web streams) cost the clients about 3 ms of CPU a request on this machine,
 * three to seven times the server's own cost, all of it the bench's and none of it the server's. The
 * streams use node:http with keep-alive; the requests go over two kept-alive sockets as plain HTTP/1.1
 * text (node:http's client still cost about 0.9 ms a request). The requests, their headers and bodies
 * are the same as a browser's: the server parses and checks each one in full.
 */
const streamAgent = new Agent({ keepAlive: true });
const { hostname, port, host } = new URL(url);

/** One kept-alive connection, one request at a time; reconnects when the server closed it. */
class Connection {
  private socket: Socket | undefined;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((error?: Error) => void) | undefined;

  private open(): Socket {
    const socket = connect(Number(port), hostname);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
      this.waiting?.();
    });
    const gone = (error?: Error) => {
      if (this.socket === socket) this.socket = undefined;
      this.waiting?.(error ?? new Error("connection closed"));
    };
    socket.once("error", gone);
    socket.once("close", () => gone());
    this.buffer = Buffer.alloc(0);
    this.socket = socket;
    return socket;
  }

  /** Sends one request and reads its response (a Content-Length body: every answer of this server's routes). */
  call(
    path: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ status: number; text: string; etag: string | undefined }> {
    const socket = this.socket ?? this.open();
    const head = [
      `${body === undefined ? "GET" : "POST"} /${path} HTTP/1.1`,
      `host: ${host}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      ...(body === undefined ? [] : [`content-length: ${Buffer.byteLength(body)}`]),
    ].join("\r\n");
    return new Promise((resolve, reject) => {
      const check = (error?: Error) => {
        const end = this.buffer.indexOf("\r\n\r\n");
        if (end >= 0) {
          const head = this.buffer.subarray(0, end).toString("latin1");
          const status = Number(head.split(" ")[1]);
          const etag = /^etag:\s*(\S+)\r?$/im.exec(head)?.[1];
          // 304 (and 204) carry no body, whatever length they name.
          const length =
            status === 304 || status === 204 ? "0" : /^content-length:\s*(\d+)\r?$/im.exec(head)?.[1];
          if (length !== undefined && this.buffer.length >= end + 4 + Number(length)) {
            const text = this.buffer.subarray(end + 4, end + 4 + Number(length)).toString("utf8");
            this.buffer = this.buffer.subarray(end + 4 + Number(length));
            return finish(undefined, { status, text, etag });
          }
          // Chunked (a server that does not say the length up front): complete at the last, empty chunk.
          const last = length === undefined ? this.buffer.indexOf("\r\n0\r\n\r\n", end) : -1;
          if (last >= 0) {
            const text = dechunk(this.buffer.subarray(end + 4, last + 2));
            this.buffer = this.buffer.subarray(last + 7);
            return finish(undefined, { status, text, etag });
          }
        }
        if (error) finish(error);
      };
      const finish = (
        error?: Error,
        response?: { status: number; text: string; etag: string | undefined },
      ) => {
        this.waiting = undefined;
        if (response) resolve(response);
        else {
          socket.destroy();
          reject(error);
        }
      };
      this.waiting = check;
      socket.write(`${head}\r\n\r\n${body ?? ""}`);
    });
  }
}
const connections = [new Connection(), new Connection()];

/** A chunked body's bytes (each chunk: its size in hex, CRLF, the bytes, CRLF) as text. */
function dechunk(bytes: Buffer): string {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const eol = bytes.indexOf("\r\n", at);
    const size = Number.parseInt(bytes.subarray(at, eol).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
}

/** The clients reading the event stream until stopped; each returns how many bytes it read. */
let open = 0;
const clients = Array.from(
  { length: CLIENTS },
  () =>
    new Promise<number>((resolve) => {
      let bytes = 0;
      const req = request(
        `${url}api/events`,
        { agent: streamAgent, headers: auth, signal: stop.signal },
        (res) => {
          if (res.statusCode === 200 && ++open === CLIENTS) process.stdout.write("ready\n");
          res.on("data", (chunk: Buffer) => {
            bytes += chunk.length;
          });
          res.once("close", () => resolve(bytes));
          res.once("error", () => resolve(bytes));
        },
      );
      req.once("error", () => resolve(bytes));
      req.end();
    }),
);

/** The requests, two at a time: lists, views, wrong tokens, and answers to a question nobody asked. */
/** Each answered request's time from sending to its answer, in ms, in the order they were answered. */
const latencies: number[] = [];
/** Reads answered `304` (the client's copy was current). */
let notModified = 0;

async function fireRequests(spanMs: number): Promise<{ sent: number; failed: number }> {
  let runId: string | undefined;
  let sent = 0;
  let failed = 0;
  const gap = spanMs / REQUESTS;
  /** The ETag of the last answer to each read, per connection (a client's cache), when CONDITIONAL. */
  const worker = async (connection: Connection) => {
    const call = connection.call.bind(connection);
    const etags = new Map<string, string>();
    const read = async (path: string) => {
      const known = CONDITIONAL ? etags.get(path) : undefined;
      const response = await call(path, known ? { ...auth, "if-none-match": known } : auth);
      if (CONDITIONAL && response.etag && response.status === 200) etags.set(path, response.etag);
      if (response.status === 304) notModified += 1;
      return response;
    };
    let burstStarted = Date.now();
    let inBurst = 0;
    while (sent < REQUESTS) {
      const n = sent++;
      const started = Date.now();
      const kind = n % 4;
      try {
        const response =
          kind === 0
            ? await read("api/runs")
            : kind === 1 && runId
              ? await read(`api/runs/${runId}`)
              : kind === 2
                ? await call("api/runs", { authorization: "Bearer wrong" })
                : await call(
                    `api/runs/${runId ?? "x"}/answer`,
                    { ...auth, "content-type": "application/json" },
                    JSON.stringify({ requestId: "00000000-0000-0000-0000-000000000000", action: "approve" }),
                  );
        latencies.push(Date.now() - started);
        if (kind === 0 && !runId && response.status === 200)
          runId = (JSON.parse(response.text) as { runId: string }[])[0]?.runId;
      } catch {
        failed += 1;
      }
      // Each socket sends its half of a burst back to back, then waits out the burst's share of the span.
      if (++inBurst < BURST / 2) continue;
      await new Promise((r) => setTimeout(r, Math.max(0, BURST * gap - (Date.now() - burstStarted))));
      inBurst = 0;
      burstStarted = Date.now();
    }
  };
  await Promise.all(connections.map(worker));
  return { sent, failed };
}

let atGo: NodeJS.CpuUsage | undefined;
let requests: Promise<{ sent: number; failed: number }> | undefined;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text: string) => {
  if (text.includes("go") && !requests) {
    atGo = process.cpuUsage();
    requests = fireRequests(Number(span));
  }
});
process.stdin.on("end", async () => {
  // The bench closes stdin when the run has ended: what was answered by then was answered during the run.
  const answeredInRun = latencies.length;
  const { sent, failed } = (await requests) ?? { sent: 0, failed: 0 };
  stop.abort();
  const read = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  // From the run's start: the clients' own start-up is not the run's competition.
  const { user, system } = process.cpuUsage(atGo);
  const cpuMs = Math.round((user + system) / 1000);
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  const latency = { p50Ms: at(0.5), p95Ms: at(0.95), maxMs: sorted.at(-1) ?? 0 };
  process.stdout.write(
    `${JSON.stringify({ sent, failed, read, cpuMs, answeredInRun, latency, notModified })}\n`,
  );
  process.exit(0);
});
