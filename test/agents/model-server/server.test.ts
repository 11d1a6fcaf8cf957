import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { FINAL_MESSAGE, type Script } from "./script.js";
import { type ModelServer, startModelServer } from "./server.js";
import { toolResults } from "./tool-results.js";

/** The scripted server itself: its faults in each provider's shape, a hang, a drop, and its record. */
let server: ModelServer;
before(async () => {
  server = await startModelServer();
});
after(() => server.close());

type Message = { content: { type: string; name?: string; text?: string; input?: Record<string, unknown> }[] };
const anthropicTools = { tools: [{ name: "Read", input_schema: { properties: { file_path: {} } } }] };
const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

describe("the scripted model server", () => {
  it("answers each provider's fault in that provider's error shape, then recovers", async () => {
    const cases = [
      { path: "/v1/messages", status: 401, expect: /"authentication_error"/ },
      { path: "/v1/messages", status: 529, expect: /"overloaded_error"/ },
      { path: "/v1/responses", status: 429, expect: /"rate_limit_exceeded"/ },
      { path: "/v1beta/models/flash:streamGenerateContent?alt=sse", status: 500, expect: /"INTERNAL"/ },
    ] as const;
    for (const c of cases) {
      server.setFault({ kind: "status", status: c.status, times: 1 });
      const failed = await post(c.path, { messages: [] });
      assert.equal(failed.status, c.status);
      assert.match(await failed.text(), c.expect);
      const next = await post(c.path, { messages: [] });
      assert.equal(next.status, 200, `${c.path} recovers after one fault`);
      await next.text();
    }
  });

  it("a hang sends nothing until the client gives up; a drop closes the connection", async () => {
    server.setFault({ kind: "hang", times: 1 });
    await assert.rejects(post("/v1/messages", {}, AbortSignal.timeout(300)), /abort|timeout/i);
    server.setFault({ kind: "drop", times: 1 });
    await assert.rejects(post("/v1/messages", {}), /fetch failed/);
    server.setFault(undefined);
  });

  it("plays the script from the conversation: read first, the final message after three tool results", async () => {
    const first = (await (
      await post("/v1/messages", { stream: false, messages: [], ...anthropicTools })
    ).json()) as Message;
    assert.equal(first.content[0]?.type, "tool_use");
    assert.equal(first.content[0]?.name, "Read");
    const results = [1, 2, 3].map((n) => ({ type: "tool_result", tool_use_id: `t${n}`, content: "ok" }));
    const last = (await (
      await post("/v1/messages", {
        stream: false,
        messages: [{ role: "user", content: results }],
        ...anthropicTools,
      })
    ).json()) as Message;
    assert.deepEqual(last.content, [{ type: "text", text: FINAL_MESSAGE }]);
    const recorded = server.requests.slice(-2).map((r) => r.answered);
    assert.deepEqual(recorded, ["read", "final"]);
  });

  it("plays the turn whose pattern the request matches, a path taken from the request, and says when none does", async () => {
    const script: Script = [
      {
        name: "critic",
        when: /# Critique/,
        steps: [
          { kind: "write", path: /Write JSON to (\S+\.json):/, content: "{}" },
          { kind: "final", text: "done" },
        ],
      },
      { name: "plan", when: /# Plan/, steps: [{ kind: "final", text: "planned" }] },
    ];
    server.setScript(script);
    const tools = { tools: [...anthropicTools.tools, { name: "Write", input_schema: { properties: {} } }] };
    const ask = async (prompt: string, content: unknown[] = []) =>
      (await (
        await post("/v1/messages", {
          stream: false,
          messages: [{ role: "user", content: [{ type: "text", text: prompt }, ...content] }],
          ...tools,
        })
      ).json()) as Message;
    const critique = "# Critique\n\nWrite JSON to /tmp/answers/critic.json:";
    const write = await ask(critique);
    assert.equal(write.content[0]?.name, "Write");
    assert.equal(
      write.content[0]?.input?.file_path,
      "/tmp/answers/critic.json",
      "an absolute path stays as it is",
    );
    const refused = {
      type: "tool_result",
      tool_use_id: "t1",
      content: "EROFS: read-only file system",
      is_error: true,
    };
    assert.deepEqual((await ask(critique, [refused])).content, [{ type: "text", text: "done" }]);
    assert.deepEqual((await ask("# Plan")).content, [{ type: "text", text: "planned" }]);
    assert.match((await ask("something else")).content[0]?.text ?? "", /no turn for this request/);
    const recorded = server.requests.slice(-4);
    assert.deepEqual(
      recorded.map((r) => [r.turn, r.answered]),
      [
        ["critic", "write"],
        ["critic", "final"],
        ["plan", "final"],
        [undefined, "unmatched"],
      ],
    );
    assert.deepEqual(toolResults(recorded[1] as (typeof recorded)[number]), ["EROFS: read-only file system"]);
    server.setScript(undefined);
    assert.equal((await ask("anything")).content[0]?.name, "Read", "the coding turn again");
  });
});
