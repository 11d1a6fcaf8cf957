/**
 * The serve bench's clients, in a process of their own: 50 page clients reading the event stream and
 * 1,000 token-checked requests spread over about `spanMs`. In real use these sit on other machines (a
 * phone, a browser elsewhere); the bench runs them at `nice 19` so they take only the CPU the run and the
 * server leave. Prints `ready` once every client's stream is open, starts the requests on a `go` line on
 * stdin, and prints one JSON line `{sent, failed, read, cpuMs}` (its CPU since `go`) when stdin closes (the bench closes it after the run).
 *
 *   node --import tsx bench/serve-load.ts <url> <token> <spanMs>
 */

const CLIENTS = 50;
const REQUESTS = 1000;

const [url, token, span] = process.argv.slice(2);
if (!url || !token || !span) {
  process.stderr.write("usage: serve-load.ts <url> <token> <spanMs>\n");
  process.exit(2);
}
const auth = { authorization: `Bearer ${token}` };
const stop = new AbortController();

/** The clients reading the event stream until stopped; each returns how many bytes it read. */
let open = 0;
const clients = Array.from({ length: CLIENTS }, async () => {
  let bytes = 0;
  try {
    const response = await fetch(`${url}api/events`, { headers: auth, signal: stop.signal });
    if (response.ok && ++open === CLIENTS) process.stdout.write("ready\n");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.length;
    }
  } catch {}
  return bytes;
});

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
            ? await fetch(`${url}api/runs`, { headers: auth })
            : kind === 1 && runId
              ? await fetch(`${url}api/runs/${runId}`, { headers: auth })
              : kind === 2
                ? await fetch(`${url}api/runs`, { headers: { authorization: "Bearer wrong" } })
                : await fetch(`${url}api/runs/${runId ?? "x"}/answer`, {
                    method: "POST",
                    headers: { ...auth, "content-type": "application/json" },
                    body: JSON.stringify({
                      requestId: "00000000-0000-0000-0000-000000000000",
                      action: "approve",
                    }),
                  });
        const text = await response.text();
        if (kind === 0 && !runId) runId = (JSON.parse(text) as { runId: string }[])[0]?.runId;
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
