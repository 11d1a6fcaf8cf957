import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { StoryContext } from "../../src/stages/context.js";
import { readinessGate } from "../../src/stages/readiness.js";
import { silentLogger } from "../../src/util/logger.js";
import { runContext } from "../pipeline/run-context.js";

async function setup(trigger = true) {
  const { run, events } = await runContext(
    [{ id: "US-1", title: "Cart total", acceptanceCriteria: [], description: "Show the total." }],
    {
      readiness: { research: false },
      interaction: trigger ? { triggers: { "story-readiness": {} } } : {},
    },
  );
  const story = run.stories.get("US-1");
  assert.ok(story);
  const ctx = {
    run,
    story,
    logger: silentLogger,
    tier: "fast",
    pass: 0,
    baseSha: "",
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
  } as StoryContext;
  const asked: string[] = [];
  const gate = (answer?: string) =>
    readinessGate(ctx, {
      askedAnswer: async (name) => {
        asked.push(name);
        return answer;
      },
    });
  const stored = () => JSON.parse(readFileSync(run.stories.path, "utf8")).userStories[0].readiness;
  const verdicts = () =>
    events
      .filter(([type]) => type === "readiness:result")
      .map(([, e]) => `${e.verdict}${e.ask ? " ask" : ""} [${(e.accepted as string[]).join(",")}]`);
  return { ctx, gate, asked, stored, verdicts };
}

describe("readinessGate", () => {
  it("continue: accepts the open codes in prd.json and the ledger's event, and a later run asks nothing", async () => {
    const { gate, asked, stored, verdicts } = await setup();
    assert.equal(await gate("continue"), undefined);
    assert.deepEqual(asked, ["story-readiness"]);
    assert.deepEqual(stored(), {
      gapSet: ["no-acceptance-criteria"],
      answer: "continue",
      accepted: ["no-acceptance-criteria"],
    });
    assert.deepEqual(verdicts(), ["fail ask []", "pass [no-acceptance-criteria]"]);
    assert.equal(await gate("skip"), undefined, "accepted: goes on");
    assert.equal(asked.length, 1, "nothing asked again");
  });

  it("fix parks the story; the same gap set waits without asking; a different gap set is a new question", async () => {
    const { ctx, gate, asked, stored } = await setup();
    assert.equal((await gate("fix"))?.status, "blocked");
    assert.equal((await gate("continue"))?.status, "blocked", "the recorded answer stands");
    assert.equal(asked.length, 1);
    ctx.story.dependencies.push("US-404");
    const third = await gate("skip");
    assert.equal(third?.status, "skipped");
    assert.equal(asked.length, 2, "a new gap set asks again");
    assert.deepEqual(stored().gapSet, ["no-acceptance-criteria", "unknown-dependency:US-404"]);
  });

  it("without the trigger, parks the story and records its gap set unanswered", async () => {
    const { gate, asked, stored, verdicts } = await setup(false);
    const parked = await gate("continue");
    assert.equal(parked?.status, "blocked");
    assert.match(parked?.reason ?? "", /^parked for readiness: no-acceptance-criteria/);
    assert.deepEqual(asked, []);
    assert.deepEqual(stored(), { gapSet: ["no-acceptance-criteria"] });
    assert.deepEqual(verdicts(), ["fail []"]);
  });
});
