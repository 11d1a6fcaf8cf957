/**
 * The serve bench's clients, in a process of their own (in real use they sit on other machines): page
 * clients reading the event stream and token-checked requests spread over about `spanMs`, all through
 * node:http's own client. Prints `ready` once every stream is open, starts the requests on a `go` line on
 * stdin, and prints one JSON line `{sent, failed, read}` when stdin closes (the bench closes it when the
 * run has ended).
 *
 *   node --import tsx bench/serve-clients.ts <url> <token> <spanMs> [clients] [requests]
 */
import { setMaxListeners } from "node:events";
import { Agent, request } from "node:http";

const [url, token, span, clientsArg = "50", requestsArg = "1000"] = process.argv.slice(2);
const CLIENTS = Number(clientsArg);
const REQUESTS = Number(requestsArg);
if (!url || !token || !span || !Number.isInteger(CLIENTS) || !Number.isInteger(REQUESTS)) {
  process.stderr.write("usage: serve-clients.ts <url> <token> <spanMs> [clients] [requests]\n");
  process.exit(2);
}
if (CLIENTS === 0) process.stdout.write("ready\n");
const auth = { authorization: `Bearer ${token}` };
const stop = new AbortController();
setMaxListeners(CLIENTS + 1, stop.signal);

const streamAgent = new Agent({ keepAlive: true });
/** Two kept-alive sockets for the requests, as a page's reads share a browser's connections. */
const requestAgent = new Agent({ keepAlive: true, maxSockets: 2 });

interface Answer {
  status: number;
  text: string;
  etag: string | undefined;
}

/** One request through node:http; rejects after 10 s. */
function call(path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        agent: requestAgent,
        method: body === undefined ? "GET" : "POST",
        headers,
        timeout: 10_000,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.once("end", () =>
          resolve({ status: res.statusCode ?? 0, text, etag: res.headers.etag as string | undefined }),
        );
        res.once("error", reject);
      },
    );
    req.once("timeout", () => req.destroy(new Error(`no answer to ${path} in 10 s`)));
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

/**
 * The requests, evenly paced: run lists and run views (with `If-None-Match` from the last answer, as a
 * browser's cache sends it), wrong tokens, and answers to a question nobody asked.
 */
async function fireRequests(spanMs: number): Promise<{ sent: number; failed: number }> {
  const gap = spanMs / REQUESTS;
  const etags = new Map<string, string>();
  let runId: string | undefined;
  let failed = 0;
  const read = async (path: string) => {
    const known = etags.get(path);
    const answer = await call(path, known ? { ...auth, "if-none-match": known } : auth);
    if (answer.etag && answer.status === 200) etags.set(path, answer.etag);
    return answer;
  };
  const one = async (n: number) => {
    const kind = n % 4;
    try {
      const answer =
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
      if (kind === 0 && !runId && answer.status === 200)
        runId = (JSON.parse(answer.text) as { runId: string }[])[0]?.runId;
    } catch {
      failed += 1;
    }
  };
  const pending: Promise<void>[] = [];
  const started = Date.now();
  for (let n = 0; n < REQUESTS; n++) {
    pending.push(one(n));
    await new Promise((r) => setTimeout(r, Math.max(0, started + (n + 1) * gap - Date.now())));
  }
  await Promise.all(pending);
  return { sent: REQUESTS, failed };
}

let requests: Promise<{ sent: number; failed: number }> | undefined;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text: string) => {
  if (text.includes("go") && !requests) requests = fireRequests(Number(span));
});
process.stdin.on("end", async () => {
  const { sent, failed } = (await requests) ?? { sent: 0, failed: 0 };
  stop.abort();
  const read = (await Promise.all(clients)).reduce((a, b) => a + b, 0);
  process.stdout.write(`${JSON.stringify({ sent, failed, read })}\n`);
  process.exit(0);
});
