import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FastLane } from "../../src/serve/fast-lane.js";
import { readHead } from "../../src/serve/request-head.js";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { raw, request } from "./raw-http.js";

const TOKEN = "test-token-0123456789";

describe("gantry serve: the fast lane reads only plainly formed token-route requests", () => {
  const host = "host: 127.0.0.1:1";
  const head = (lines: string[]) => lines.join("\r\n");

  it("reads the four routes it answers, with the header values the checks use", () => {
    const get = readHead(head(["GET /api/runs HTTP/1.1", host, "authorization: Bearer t", "x-other: 1"]));
    assert.deepEqual(get, {
      method: "GET",
      path: "/api/runs",
      host: "127.0.0.1:1",
      origin: undefined,
      authorization: "Bearer t",
      contentType: undefined,
      ifNoneMatch: undefined,
      length: 0,
    });
    assert.equal(readHead(head(["GET /api/runs/r-1 HTTP/1.1", host]))?.path, "/api/runs/r-1");
    const post = readHead(
      head([
        "POST /api/runs/r-1/answer HTTP/1.1",
        host,
        "Content-Type: application/json",
        "content-length: 12",
      ]),
    );
    assert.equal(post?.length, 12);
    assert.equal(post?.contentType, "application/json");
    assert.equal(
      readHead(head(["POST /api/runs/r-1/control HTTP/1.1", host, "content-length: 0"]))?.length,
      0,
    );
    assert.equal(
      readHead(head(["GET /api/runs HTTP/1.1", host, "Connection: keep-alive"]))?.path,
      "/api/runs",
    );
    assert.equal(
      readHead(head(["GET /api/events HTTP/1.1", host, "accept: text/event-stream"]))?.path,
      "/api/events",
    );
  });

  it("reads a head of spaces in linear time (no backtracking on the bound 16 KiB)", () => {
    const started = performance.now();
    const spaces = " ".repeat(16_000);
    const read = readHead(head(["GET /api/runs HTTP/1.1", host, `authorization:${spaces}Bearer t${spaces}`]));
    assert.equal(read?.authorization, "Bearer t");
    assert.equal(readHead(head(["GET /api/runs HTTP/1.1", host, `x-a:${spaces}\u0001${spaces}`])), undefined);
    assert.ok(performance.now() - started < 50, `${performance.now() - started} ms`);
  });

  it("leaves everything else to node:http", () => {
    const refused: [string, string[]][] = [
      ["the page", ["GET / HTTP/1.1", host]],
      ["the event stream's other method", ["POST /api/events HTTP/1.1", host, "content-length: 0"]],
      ["a device route", ["GET /v1/device/runs HTTP/1.1", host]],
      ["a query", ["GET /api/runs?x=1 HTTP/1.1", host]],
      ["an encoded target", ["GET /api/runs/%41 HTTP/1.1", host]],
      ["a dot in the target", ["GET /api/runs/../x HTTP/1.1", host]],
      ["GET on a verb", ["GET /api/runs/r/answer HTTP/1.1", host]],
      ["POST on a view", ["POST /api/runs/r HTTP/1.1", host, "content-length: 0"]],
      ["HEAD", ["HEAD /api/runs HTTP/1.1", host]],
      ["OPTIONS", ["OPTIONS /api/runs HTTP/1.1", host]],
      ["HTTP/1.0", ["GET /api/runs HTTP/1.0", host]],
      ["two Hosts", ["GET /api/runs HTTP/1.1", host, host]],
      ["two Authorizations", ["GET /api/runs HTTP/1.1", host, "authorization: a", "Authorization: b"]],
      ["two Origins", ["GET /api/runs HTTP/1.1", host, "origin: a", "origin: b"]],
      [
        "two Content-Types",
        ["POST /api/runs/r/answer HTTP/1.1", host, "content-type: a", "content-type: b", "content-length: 1"],
      ],
      [
        "two Content-Lengths",
        ["POST /api/runs/r/answer HTTP/1.1", host, "content-length: 1", "content-length: 1"],
      ],
      ["Transfer-Encoding", ["POST /api/runs/r/answer HTTP/1.1", host, "transfer-encoding: chunked"]],
      [
        "Transfer-Encoding and a length",
        ["POST /api/runs/r/answer HTTP/1.1", host, "content-length: 2", "Transfer-Encoding: chunked"],
      ],
      ["Expect", ["POST /api/runs/r/answer HTTP/1.1", host, "expect: 100-continue", "content-length: 2"]],
      ["Upgrade", ["GET /api/runs HTTP/1.1", host, "upgrade: websocket"]],
      ["Connection: close", ["GET /api/runs HTTP/1.1", host, "connection: close"]],
      ["a device header", ["GET /api/runs HTTP/1.1", host, "X-Gantry-Device: d-1"]],
      ["a folded line", ["GET /api/runs HTTP/1.1", host, "x-a: 1", " folded"]],
      ["a space before the colon", ["GET /api/runs HTTP/1.1", "host : 127.0.0.1:1"]],
      ["a bare LF in a value", ["GET /api/runs HTTP/1.1", "x-a: 1\nhost: evil"]],
      ["a byte over 0x7e", ["GET /api/runs HTTP/1.1", host, "x-a: caf\u00e9"]],
      ["a NUL", ["GET /api/runs HTTP/1.1", host, "x-a: a\u0000b"]],
      ["an empty line inside", ["GET /api/runs HTTP/1.1", "", host]],
      ["a body on a GET", ["GET /api/runs HTTP/1.1", host, "content-length: 1"]],
      ["a POST without a length", ["POST /api/runs/r/answer HTTP/1.1", host]],
      ["a length over 4 KiB", ["POST /api/runs/r/answer HTTP/1.1", host, "content-length: 4097"]],
      ["a length not in digits", ["POST /api/runs/r/answer HTTP/1.1", host, "content-length: +12"]],
      ["a negative length", ["POST /api/runs/r/answer HTTP/1.1", host, "content-length: -1"]],
      ["51 headers", ["GET /api/runs HTTP/1.1", host, ...Array.from({ length: 50 }, (_, i) => `x-${i}: 1`)]],
    ];
    for (const [what, lines] of refused) assert.equal(readHead(head(lines)), undefined, what);
  });
});

describe("gantry serve: the fast lane answers as node:http does", () => {
  let server: ServeHandle;
  let run: ReturnType<typeof fakeRun>;
  let origin: string;
  before(async () => {
    run = fakeRun();
    server = await startServer({ root: run.root, host: "127.0.0.1", port: 0, token: TOKEN, pollMs: 50 });
    origin = `127.0.0.1:${server.port}`;
  });
  after(() => server.close());

  const auth = () => ({ host: origin, authorization: `Bearer ${TOKEN}` });
  const json = () => ({ ...auth(), "content-type": "application/json" });
  const answer = (body: object) => JSON.stringify({ requestId: run.requestId, ...body });
  /** The page first: node:http takes the connection, and answers every request after it. */
  const PAGE = () => `GET / HTTP/1.1\r\nhost: ${origin}\r\n\r\n`;

  it("gives every token-route answer the same status, body and headers either way, and writes nothing", async () => {
    const cases: [string, string, number][] = [
      ["the run list", request("GET", "/api/runs", auth()), 200],
      ["a run's view", request("GET", `/api/runs/${RUN_ID}`, auth()), 200],
      ["an unknown run", request("GET", "/api/runs/no-such-run", auth()), 404],
      ["a wrong token", request("GET", "/api/runs", { host: origin, authorization: "Bearer wrong" }), 401],
      ["no token", request("GET", "/api/runs", { host: origin }), 401],
      [
        "a token of another case",
        request("GET", "/api/runs", { host: origin, authorization: `bearer ${TOKEN}` }),
        401,
      ],
      ["a wrong Host", request("GET", "/api/runs", { ...auth(), host: "evil.example:80" }), 421],
      ["a wrong Origin", request("GET", "/api/runs", { ...auth(), origin: "http://evil.example" }), 403],
      [
        "the server's own Origin",
        request("GET", "/api/runs", { ...auth(), origin: `http://${origin}` }),
        200,
      ],
      [
        "localhost as Host",
        request("GET", "/api/runs", { ...auth(), host: `localhost:${server.port}` }),
        200,
      ],
      [
        "an option not offered",
        request("POST", `/api/runs/${RUN_ID}/answer`, json(), answer({ action: "launch" })),
        422,
      ],
      [
        "an extra field",
        request("POST", `/api/runs/${RUN_ID}/answer`, json(), answer({ action: "approve", note: "x" })),
        422,
      ],
      [
        "not JSON's type",
        request(
          "POST",
          `/api/runs/${RUN_ID}/answer`,
          { ...auth(), "content-type": "text/plain" },
          answer({ action: "approve" }),
        ),
        415,
      ],
      ["not JSON", request("POST", `/api/runs/${RUN_ID}/answer`, json(), "{"), 400],
      [
        "a question nobody asked",
        request(
          "POST",
          `/api/runs/${RUN_ID}/answer`,
          json(),
          JSON.stringify({ requestId: "00000000-0000-0000-0000-000000000000", action: "approve" }),
        ),
        404,
      ],
      [
        "an answer to an unknown run",
        request("POST", "/api/runs/no-such-run/answer", json(), answer({ action: "approve" })),
        404,
      ],
      [
        "a control with an extra field",
        request("POST", `/api/runs/${RUN_ID}/control`, json(), JSON.stringify({ action: "pause", x: 1 })),
        422,
      ],
      [
        "a control to skip an unknown story",
        request(
          "POST",
          `/api/runs/${RUN_ID}/control`,
          json(),
          JSON.stringify({ action: "skip", storyId: "US-9" }),
        ),
        404,
      ],
    ];
    const fastBefore = server.fastAnswered();
    for (const [what, bytes, status] of cases) {
      const [fast] = await raw(server.port, bytes, 1);
      const [, slow] = await raw(server.port, PAGE() + bytes, 2);
      assert.ok(fast && slow, what);
      assert.equal(fast.status, status, `${what}: ${fast.body}`);
      assert.equal(slow.status, status, `${what} through node:http: ${slow.body}`);
      assert.deepEqual(JSON.parse(fast.body), JSON.parse(slow.body), what);
      for (const name of [
        "content-type",
        "cache-control",
        "x-content-type-options",
        "x-frame-options",
        "referrer-policy",
      ])
        assert.equal(fast.headers[name], slow.headers[name], `${what}: ${name}`);
    }
    assert.equal(
      server.fastAnswered() - fastBefore,
      cases.length,
      "each case once in the fast lane, once not",
    );
    assert.deepEqual(
      readdirSync(join(run.runDir, "interaction")).filter((f) => f.endsWith(".response.json")),
      [],
    );
    assert.equal(readdirSync(run.runDir).includes("control"), false);
  });

  it("answers as node:http does for 60 requests mixed from hosts, origins, tokens, types, bodies and routes", async () => {
    let seed = 17;
    const pick = <T>(items: T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return items[seed % items.length] as T;
    };
    const hosts = [
      origin,
      `localhost:${server.port}`,
      `LOCALHOST:${server.port}`,
      "127.0.0.1",
      "evil.example:80",
      undefined,
    ];
    const origins = [undefined, `http://${origin}`, `https://${origin}`, "http://evil.example", "null", ""];
    const tokens = [
      `Bearer ${TOKEN}`,
      `Bearer  ${TOKEN} `,
      `Bearer ${TOKEN}x`,
      `Basic ${TOKEN}`,
      TOKEN,
      "",
      undefined,
    ];
    const types = [
      "application/json",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "text/plain",
      undefined,
    ];
    const bodies = [
      answer({ action: "launch" }),
      answer({ action: "approve", extra: 1 }),
      JSON.stringify({ action: "pause" }),
      JSON.stringify({ action: "skip", storyId: "US-9" }),
      "[]",
      "",
      "nope",
    ];
    const targets: [string, string][] = [
      ["GET", "/api/runs"],
      ["GET", `/api/runs/${RUN_ID}`],
      ["GET", "/api/runs/missing"],
      ["POST", `/api/runs/${RUN_ID}/answer`],
      ["POST", `/api/runs/${RUN_ID}/control`],
      ["POST", "/api/runs/missing/answer"],
    ];
    const fastBefore = server.fastAnswered();
    for (let i = 0; i < 60; i++) {
      const [method, target] = pick(targets);
      const headers: Record<string, string> = {};
      for (const [name, value] of [
        ["host", pick(hosts)],
        ["origin", pick(origins)],
        ["authorization", pick(tokens)],
        ["content-type", method === "POST" ? pick(types) : undefined],
      ] as const)
        if (value !== undefined) headers[name] = value;
      const bytes = request(method, target, headers, method === "POST" ? pick(bodies) : undefined);
      const [fast] = await raw(server.port, bytes, 1);
      const [, slow] = await raw(server.port, PAGE() + bytes, 2);
      assert.equal(fast?.status, slow?.status, bytes);
      assert.deepEqual(JSON.parse(fast?.body || "null"), JSON.parse(slow?.body || "null"), bytes);
    }
    assert.ok(server.fastAnswered() - fastBefore >= 50, "most of them in the fast lane");
    assert.deepEqual(
      readdirSync(join(run.runDir, "interaction")).filter((f) => f.endsWith(".response.json")),
      [],
    );
  });

  it("streams the same frames either way, chunked, and refuses a stream without the token", async () => {
    /** The stream's head and its first frames (the run list and the run), de-chunked. */
    const firstFrames = (bytes: string) =>
      new Promise<{ head: string; frames: string }>((resolve, reject) => {
        const socket = connect(server.port, "127.0.0.1");
        let text = "";
        const timer = setTimeout(() => reject(new Error(`no frames: ${JSON.stringify(text)}`)), 5000);
        socket.on("data", (chunk: Buffer) => {
          // One character a byte: chunk sizes count bytes.
          text += chunk.toString("latin1");
          const at = text.lastIndexOf("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream");
          const end = text.indexOf("\r\n\r\n", at);
          if (at < 0 || end < 0) return;
          let frames = "";
          let rest = text.slice(end + 4);
          for (;;) {
            const eol = rest.indexOf("\r\n");
            if (eol < 0) break;
            const size = Number.parseInt(rest.slice(0, eol), 16);
            if (!(size >= 0)) return reject(new Error(`not a chunk: ${JSON.stringify(rest.slice(0, 80))}`));
            if (rest.length < eol + 2 + size + 2) break;
            frames += rest.slice(eol + 2, eol + 2 + size);
            rest = rest.slice(eol + 2 + size + 2);
          }
          if (!/event: run\n/.test(frames)) return;
          clearTimeout(timer);
          socket.destroy();
          resolve({ head: text.slice(at, end), frames });
        });
        socket.write(bytes);
      });
    const events = request("GET", "/api/events", { ...auth(), accept: "text/event-stream" });
    const fastBefore = server.fastAnswered();
    const fast = await firstFrames(events);
    assert.equal(server.fastAnswered() - fastBefore, 1);
    const slow = await firstFrames(PAGE() + events);
    assert.equal(fast.frames, slow.frames);
    const headers = (head: string) =>
      head
        .split("\r\n")
        .slice(1)
        .map((line) => line.toLowerCase())
        .filter((line) => !line.startsWith("date:"))
        .sort();
    assert.deepEqual(headers(fast.head), headers(slow.head));
    assert.match(fast.frames, /^event: runs\ndata: \[.*\n\nevent: run\ndata: \{"/s);
    const [refused] = await raw(server.port, request("GET", "/api/events", { host: origin }), 1);
    assert.equal(refused?.status, 401);
  });

  it("answers pipelined requests in order, and gives the connection to node:http at the first it does not read", async () => {
    const fastBefore = server.fastAnswered();
    const replies = await raw(
      server.port,
      request("GET", "/api/runs", auth()) +
        request("POST", `/api/runs/${RUN_ID}/answer`, json(), answer({ action: "launch" })) +
        request("GET", "/api/runs", { ...auth(), "transfer-encoding": "chunked" }).replace(
          /\r\n\r\n$/,
          "\r\n\r\n0\r\n\r\n",
        ) +
        request("GET", `/api/runs/${RUN_ID}`, auth()),
      4,
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 422, 200, 200],
    );
    assert.equal(JSON.parse(replies[3]?.body ?? "{}").runId, RUN_ID);
    assert.equal(server.fastAnswered() - fastBefore, 2, "the two before the chunked one");
  });

  it("answers a client that half-closes after its request, then ends the connection", async () => {
    const socket = connect(server.port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk;
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    const started = Date.now();
    socket.end(request("GET", "/api/runs", auth()));
    await closed;
    assert.ok(Date.now() - started < 2000, "ended at once, not by the 5 s keep-alive limit");
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))[0].runId, RUN_ID);
  });

  it("leaves a body over the bound, or two lengths, to node:http's refusals", async () => {
    const [big] = await raw(
      server.port,
      request("POST", `/api/runs/${RUN_ID}/answer`, json(), "x".repeat(5000)),
      1,
    );
    assert.equal(big?.status, 413);
    const twice = `POST /api/runs/${RUN_ID}/answer HTTP/1.1\r\nhost: ${origin}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\n{}`;
    const [refused] = await raw(server.port, twice, 1);
    assert.equal(refused?.status, 400);
  });

  it("takes a real answer to the run's question", async () => {
    const [ok] = await raw(
      server.port,
      request("POST", `/api/runs/${RUN_ID}/answer`, json(), answer({ action: "approve" })),
      1,
    );
    assert.equal(ok?.status, 200, ok?.body);
    const [again] = await raw(
      server.port,
      request("POST", `/api/runs/${RUN_ID}/answer`, json(), answer({ action: "approve" })),
      1,
    );
    assert.equal(again?.status, 409);
    assert.equal(JSON.parse(again?.body ?? "{}").code, "already-answered");
  });
});

describe("gantry serve: the fast lane while an answer is being made", () => {
  it("reads no further than a socket's buffer until the answer is written (a client pipelining 4 MB)", async () => {
    let release = () => {};
    let asked = 0;
    const lane = new FastLane({
      answer: () => {
        asked += 1;
        return new Promise((resolve) => {
          release = () => resolve({ status: 200, json: '{"n":1}' });
        });
      },
      stream: () => ({ status: 503, json: "{}" }),
      handOff: (socket) => socket.destroy(),
    });
    let accepted: Socket | undefined;
    const server = createServer((socket) => {
      accepted = socket;
      lane.take(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const client = connect(port, "127.0.0.1");
    let text = "";
    client.on("data", (chunk) => {
      text += chunk;
    });
    const closed = new Promise((resolve) => client.on("close", resolve));
    // The server drops the connection while the client may still be writing the junk: a reset is expected.
    client.on("error", () => {});
    try {
      client.write("GET /api/runs HTTP/1.1\r\nhost: x\r\n\r\n");
      while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      client.write(Buffer.alloc(4 * 1024 * 1024, "x"));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const read = accepted?.bytesRead ?? 0;
      assert.ok(read < 512 * 1024, `read ${read} bytes behind a pending answer`);
      release();
      // The answer, then the junk behind it is no request: the connection goes to node:http (here: closed).
      await closed;
      assert.match(text, /^HTTP\/1\.1 200 OK\r\n[\s\S]*\{"n":1\}$/);
      assert.equal(asked, 1);
    } finally {
      client.destroy();
      lane.close();
      server.close();
    }
  });
});

describe("gantry serve: the fast lane's timeouts", () => {
  it("closes a connection that sends half a request (408), and one idle between requests", async () => {
    const lane = new FastLane({
      answer: () => ({ status: 200, json: "{}" }),
      stream: () => ({ status: 503, json: "{}" }),
      handOff: (socket) => socket.destroy(),
      requestTimeoutMs: 200,
      keepAliveMs: 300,
    });
    const server = createServer((socket) => lane.take(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const closed = (socket: Socket) =>
      new Promise<string>((resolve) => {
        let text = "";
        socket.on("data", (chunk) => {
          text += chunk;
        });
        socket.on("close", () => resolve(text));
      });
    try {
      const started = Date.now();
      const half = connect(port, "127.0.0.1");
      half.write("GET /api/runs HTTP/1.1\r\nhost: x\r\n");
      assert.match(await closed(half), /^HTTP\/1\.1 408 /);
      const idle = connect(port, "127.0.0.1");
      idle.write("GET /api/runs HTTP/1.1\r\nhost: x\r\n\r\n");
      assert.match(await closed(idle), /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{\}$/);
      assert.ok(Date.now() - started < 3000, "both closed within their limits");
      assert.equal(lane.size, 0);
    } finally {
      lane.close();
      server.close();
    }
  });
});
