import assert from "node:assert/strict";
import { once } from "node:events";
import { connect, createServer, type Socket } from "node:net";
import { describe, it } from "node:test";
import { writeAnswer } from "../../src/serve/answer-write.js";
import { EntityTags } from "../../src/serve/entity-tag.js";
import type { JsonReply } from "../../src/serve/token-routes.js";

/** The bytes `writeAnswer` puts on a real loopback connection for each reply, in order. */
async function wire(replies: JsonReply[]): Promise<string> {
  const server = createServer((socket: Socket) => {
    for (const reply of replies) writeAnswer(socket, reply);
    socket.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  const client = connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  client.on("data", (chunk: Buffer) => chunks.push(chunk));
  await once(client, "end");
  server.close();
  return Buffer.concat(chunks).toString("utf8");
}

/** The answers' heads without their Date line (it changes each second). */
const dateless = (text: string) => text.replace(/date: [^\r]*\r\n/g, "date: -\r\n");

describe("gantry serve: an answer's bytes", () => {
  it("writes a cached read's kept bytes after its head, as the same answer written as text", async () => {
    const json = JSON.stringify({ runId: "r", title: "Ünïcode — ✓", stories: ["x".repeat(9000)] });
    const { tag, body } = new EntityTags().entry("r", json);
    const kept = await wire([{ status: 200, json, etag: tag, body }]);
    const text = await wire([{ status: 200, json, etag: tag }]);
    assert.equal(dateless(kept), dateless(text));
    assert.match(kept, new RegExp(`content-length: ${Buffer.byteLength(json)}\\r\\n`));
    assert.ok(kept.endsWith(`\r\n\r\n${json}`), "the JSON follows the head whole");
  });

  it("writes a 304 with no body, type or length, even when the read's bytes are kept", async () => {
    const { tag, body } = new EntityTags().entry("r", '{"a":1}');
    const text = await wire([{ status: 304, json: "", etag: tag, body }]);
    assert.ok(text.startsWith("HTTP/1.1 304 Not Modified\r\n"));
    assert.doesNotMatch(text, /\r\ncontent-(length|type):/);
    assert.ok(text.endsWith("keep-alive: timeout=5\r\n\r\n"));
  });

  it("keeps answers to pipelined requests in order, kept bytes or text", async () => {
    const tags = new EntityTags();
    const first = tags.entry("a", '{"n":1}');
    const text = await wire([
      { status: 200, json: '{"n":1}', etag: first.tag, body: first.body },
      { status: 401, json: '{"code":"no-token"}' },
      { status: 304, json: "", etag: first.tag },
    ]);
    const statuses = [...text.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => m[1]);
    assert.deepEqual(statuses, ["200", "401", "304"]);
    assert.ok(text.indexOf('{"n":1}') < text.indexOf('{"code":"no-token"}'));
  });
});
