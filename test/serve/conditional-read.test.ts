import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EntityTags, noneMatchHolds } from "../../src/serve/entity-tag.js";
import { type ServeHandle, startServer } from "../../src/serve/server.js";
import { fakeRun, RUN_ID } from "./fake-run.js";
import { type RawReply, raw, request } from "./raw-http.js";

const TOKEN = "test-token-0123456789";

describe("gantry serve: entity tags", () => {
  it("tags the same JSON alike and other JSON otherwise, per key", () => {
    const tags = new EntityTags();
    const a = tags.tag("", '{"a":1}');
    assert.match(a, /^"[A-Za-z0-9_-]{27}"$/);
    assert.equal(tags.tag("", '{"a":1}'), a);
    assert.notEqual(tags.tag("", '{"a":2}'), a);
    assert.equal(tags.tag("r-1", '{"a":1}'), a, "a digest of the bytes, whatever the key");
  });

  it("reads If-None-Match as RFC 9110 says: a list, weak tags compared weakly, *", () => {
    const tag = '"abc"';
    assert.equal(noneMatchHolds(undefined, tag), false);
    assert.equal(noneMatchHolds('"abc"', tag), true);
    assert.equal(noneMatchHolds('W/"abc"', tag), true);
    assert.equal(noneMatchHolds('"x", "abc"', tag), true);
    assert.equal(noneMatchHolds("*", tag), true);
    assert.equal(noneMatchHolds('"abcd"', tag), false);
    assert.equal(noneMatchHolds("abc", tag), false, "an unquoted value is not the tag");
    assert.equal(noneMatchHolds("", tag), false);
  });
});

describe("gantry serve: a conditional read is answered 304, only after every check", () => {
  let server: ServeHandle;
  let run: ReturnType<typeof fakeRun>;
  let origin: string;
  before(async () => {
    run = fakeRun();
    server = await startServer({ root: run.root, host: "127.0.0.1", port: 0, token: TOKEN, pollMs: 50 });
    origin = `127.0.0.1:${server.port}`;
  });
  after(() => server.close());

  const auth = (extra: Record<string, string> = {}) => ({
    host: origin,
    authorization: `Bearer ${TOKEN}`,
    ...extra,
  });
  const once = async (bytes: string): Promise<RawReply> => {
    const [reply] = await raw(server.port, bytes, 1);
    assert.ok(reply);
    return reply;
  };

  for (const target of ["/api/runs", `/api/runs/${RUN_ID}`]) {
    it(`GET ${target.replace(RUN_ID, "{id}")}: 200 with a tag, 304 with no body for the copy held`, async () => {
      const first = await once(request("GET", target, auth()));
      assert.equal(first.status, 200);
      const tag = first.headers.etag as string;
      assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
      for (const held of [tag, `W/${tag}`, `"other", ${tag}`, "*"]) {
        const reply = await once(request("GET", target, auth({ "if-none-match": held })));
        assert.equal(reply.status, 304, held);
        assert.equal(reply.body, "");
        assert.equal(reply.headers.etag, tag);
        assert.equal(reply.headers["content-length"], undefined);
        assert.equal(reply.headers["content-type"], undefined);
        assert.equal(reply.headers["cache-control"], "no-store");
        assert.equal(reply.headers["x-content-type-options"], "nosniff");
        assert.equal(reply.headers["x-frame-options"], "DENY");
        assert.equal(reply.headers["referrer-policy"], "no-referrer");
      }
      const other = await once(request("GET", target, auth({ "if-none-match": '"not-it"' })));
      assert.equal(other.status, 200);
      assert.equal(other.body, first.body);
    });
  }

  it("refuses a wrong token, Host or Origin as before, whatever the copy held", async () => {
    const [ok] = await raw(server.port, request("GET", "/api/runs", auth()), 1);
    const held = { "if-none-match": ok?.headers.etag as string };
    const cases: [Record<string, string>, number][] = [
      [{ host: origin, authorization: "Bearer wrong", ...held }, 401],
      [{ host: origin, ...held }, 401],
      [auth({ host: "evil.example:80", ...held }), 421],
      [auth({ origin: "http://evil.example", ...held }), 403],
    ];
    for (const [headers, status] of cases) {
      const reply = await once(request("GET", "/api/runs", headers));
      assert.equal(reply.status, status, JSON.stringify(headers));
      assert.equal(reply.headers.etag, undefined);
    }
  });

  it("gives a new tag when the run changes, and the old one then gets the whole view", async () => {
    const target = `/api/runs/${RUN_ID}`;
    const [first] = await raw(server.port, request("GET", target, auth()), 1);
    const old = first?.headers.etag as string;
    run.append({ type: "stage:enter", storyId: "US-1", stage: "review" });
    let changed: RawReply | undefined;
    for (let i = 0; i < 100 && changed?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      [changed] = await raw(server.port, request("GET", target, auth({ "if-none-match": old })), 1);
    }
    assert.equal(changed?.status, 200);
    assert.notEqual(changed?.headers.etag, old);
    assert.notEqual(changed?.body, first?.body);
    const [again] = await raw(
      server.port,
      request("GET", target, auth({ "if-none-match": changed?.headers.etag as string })),
      1,
    );
    assert.equal(again?.status, 304);
  });
});
