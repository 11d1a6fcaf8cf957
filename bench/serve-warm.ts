/**
 * What a request costs a warm `gantry serve`, against node's own floor: the server of each build given
 * watches a live run that does not change (test/serve/fake-run.ts), and the serve bench's request mix
 * (bench/serve-load.ts, no streams) is sent in batches of 500, each over about 2.5 s; prints one JSON line
 * per build with the server's CPU per batch (user + system from /proc/<pid>/stat). A flat series is a warm
 * server (no JIT warm-up left). `floor` as a build is a bare node:http server answering every request
 * with a constant: what node's HTTP and the kernel cost alone.
 *
 *   node --import tsx bench/serve-warm.ts <batches> <cli.js | floor> [...]
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { fakeRun } from "../test/serve/fake-run.js";
import { spawnLoadClients } from "./serve-run.js";
import { serveUrl } from "./serve-url.js";

const [batchesArg = "3", ...builds] = process.argv.slice(2);
const BATCHES = Number(batchesArg);
if (!Number.isInteger(BATCHES) || BATCHES < 1 || builds.length === 0) {
  process.stderr.write("usage: serve-warm.ts <batches> <cli.js | floor> [...]\n");
  process.exit(2);
}

const FLOOR = `
const { createServer } = require("node:http");
const body = JSON.stringify({ code: "ok", message: "a constant answer of about this size" });
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () =>
  process.stdout.write("gantry serve: http://127.0.0.1:" + server.address().port + "/#token=floor\\n"));
`;

const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(build: string): Promise<number[]> {
  const run = fakeRun();
  const args = build === "floor" ? ["-e", FLOOR] : [resolve(build), "serve", "--dir", run.root];
  const server = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "ignore"] });
  try {
    const { url, token } = await serveUrl(server);
    await sleep(1500);
    const perBatch: number[] = [];
    for (let i = 0; i < BATCHES; i++) {
      const clients = spawnLoadClients(false, [url as string, token as string, "2500", "0", "500"]);
      await sleep(1500);
      const before = cpuMs(server.pid as number);
      clients.stdin?.write("go\n");
      await sleep(3500);
      const exited = new Promise((r) => clients.once("exit", r));
      clients.stdin?.end();
      await exited;
      perBatch.push(cpuMs(server.pid as number) - before);
    }
    return perBatch;
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
    }
    rmSync(run.root, { recursive: true, force: true });
  }
}

for (const build of builds) {
  process.stdout.write(`${JSON.stringify({ build, cpuMsPer500Requests: await measure(build) })}\n`);
}
