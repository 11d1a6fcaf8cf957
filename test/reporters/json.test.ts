import assert from "node:assert/strict";
import { describe, it } from "node:test";
import json from "../../src/reporters/json.js";
import { type Capture, capture, FEATURE, NASTY_TITLE, RUN_ID, runSample } from "./sample-run.js";

describe("json reporter", () => {
  it("prints every event as one JSON line on stdout, and nothing else", async () => {
    const { stdout, ctx, events } = await runSample(json, {}, { stdout: capture(true) });
    assert.ok(stdout.text.endsWith("\n"));
    const lines = stdout.text.slice(0, -1).split("\n");
    assert.equal(lines.length, events);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const event of parsed) {
      assert.equal(typeof event.type, "string");
      assert.equal(event.runId, RUN_ID);
      assert.match(String(event.at), /^2026-03-04T\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    assert.deepEqual(parsed[0], {
      type: "run:start",
      feature: FEATURE,
      totalStories: 3,
      runId: RUN_ID,
      at: parsed[0]?.at,
    });
    assert.equal(parsed.at(-1)?.type, "run:complete");
    assert.equal(parsed.filter((e) => e.type === "gate:verdict").length, 6);
    const start = parsed.find((e) => e.type === "story:start" && (e.story as { id: string }).id === "US-002");
    assert.equal(
      (start?.story as { title: string } | undefined)?.title,
      NASTY_TITLE,
      "the title survives, newline included",
    );
    assert.equal((ctx.stderr as Capture).text, "");
  });

  it("takes no options", () => {
    assert.throws(() => json({ pretty: true }, {} as never), /invalid options: Unrecognized key: "pretty"/);
  });
});
