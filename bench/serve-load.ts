/**
 * The serve bench's clients, in a process of their own: 50 page clients reading the event stream and
 * 1,000 token-checked requests spread over about `spanMs`. In real use these sit on other machines (a
 * phone, a browser elsewhere); the bench runs them at `nice 19` so they take only the CPU the run and the
 * server leave. Prints `ready` once every client's stream is open, starts the requests on a `go` line on
 * stdin, and prints one JSON line `{sent, failed, read, cpuMs}` (its CPU since `go`) when stdin closes (the bench closes it after the run).
 *
 *   node --import tsx bench/serve-load.ts <url> <token> <spanMs> [clients] [requests]
 *
 * `clients` and `requests` (default 50 and 1000) let the bench measure the two halves of the load apart.
 */
import { setMaxListeners } from "node:events";
import { Agent, request } from "node:http";

const [url, token, span, clientsArg = "50", requestsArg = "1000"] = process.argv.slice(2);
const CLIENTS = Number(clientsArg);
const REQUESTS = Number(requestsArg);
if (!url || !token || !span || !Number.isInteger(CLIENTS) || !Number.isInteger(REQUESTS)) {
  process.stderr.write("usage: serve-load.ts <url> <token> <spanMs> [clients] [requests]\n");
  process.exit(2);
}
if (CLIENTS === 0) process.stdout.write("ready\n");
const auth = { authorization: `Bearer ${token}` };
const stop = new AbortController();
setMaxListeners(CLIENTS + 1, stop.signal);

/**
 * node:http with keep-alive, not fetch: fetch (undici, web streams) cost the clients about 3 ms of CPU a
 * request on this machine, three to seven times the server's own cost, all of it the bench's and none of
 * it the server's. The requests and headers are the same; the server sees the same load.
 */
const streamAgent = new Agent({ keepAlive: true });
const requestAgent = new Agent({ keepAlive: true, maxSockets: 2 });

/** One request; resolves with the status and the body as text. */
function call(
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { agent: requestAgent, method: body === undefined ? "GET" : "POST", headers },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.once("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.once("error", reject);
      },
    );
    req.once("error", reject);
    req.end(body);
  });
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
async function fireRequests(spanMs: number): Promise<{ sent: number; failed: number }> {
  let runId: string | undefined;
  let sent = 0;
  let failed = 0;
  const gap = spanMs / REQUESTS;
  const worker = async () => {
    while (sent < REQUESTS) {
      const n = sent++;
      const started = Date.now();
      const kind = n % 4;
      try {
        const response =
          kind === 0
            ? await call("api/runs", auth)
            : kind === 1 && runId
              ? await call(`api/runs/${runId}`, auth)
              : kind === 2
                ? await call("api/runs", { authorization: "Bearer wrong" })
                : await call(
                    `api/runs/${runId ?? "x"}/answer`,
                    { ...auth, "content-type": "application/json" },
                    JSON.stringify({ requestId: "00000000-0000-0000-0000-000000000000", action: "approve" }),
                  );
        if (kind === 0 && !runId) runId = (JSON.parse(response.text) as { runId: string }[])[0]?.runId;
      } catch {
        failed += 1;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 2 * gap - (Date.now() - started))));
    }
  };
  await Promise.all([worker(), worker()]);
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
  const { sent, failed } = (await requests) ?? { sent: 0, failed: 0 };
  stop.abort();
  const read = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  // From the run's start: the clients' own start-up is not the run's competition.
  const { user, system } = process.cpuUsage(atGo);
  const cpuMs = Math.round((user + system) / 1000);
  process.stdout.write(`${JSON.stringify({ sent, failed, read, cpuMs })}\n`);
  process.exit(0);
});
