import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { StageResult } from "../../src/model/stage.js";
import { executeStory } from "../../src/pipeline/story-executor.js";
import type { PluginRouter } from "../../src/plugins/types.js";
import type { Story } from "../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import type { Stage } from "../../src/stages/stage.js";
import { git, runContext } from "./run-context.js";

const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  routing: { complexity: "simple" },
  ...extra,
});

/** A pass seen by the test's stages: its tier and the routing decision it carried. */
interface Seen {
  tier: string;
  pass: number;
  routeReason?: string;
}

/** Stages written for the test: routing records the pass, execution plays `results` in order (the last repeats). */
function scripted(results: StageResult[], seen: Seen[], work?: (ctx: StoryContext) => void): Stage[] {
  let pass = 0;
  return [
    {
      name: "routing",
      enabled: () => true,
      async execute(ctx) {
        seen.push({ tier: ctx.tier, pass: ctx.pass, routeReason: ctx.route?.decision.reason });
        return { action: "continue" };
      },
    },
    {
      name: "execution",
      enabled: () => true,
      async execute(ctx) {
        work?.(ctx);
        return results[Math.min(pass++, results.length - 1)] as StageResult;
      },
    },
  ];
}

function storyOf(run: RunContext, id: string): Story {
  const found = run.stories.get(id);
  if (!found) throw new Error(`no story ${id} in the test's PRD`);
  return found;
}

const types = (events: [string, unknown][]) => events.map(([type]) => type);

describe("executeStory", () => {
  it("passes: story:start at the tier routing picked, then story:complete with the pass's metrics", async () => {
    const { run, events } = await runContext([story("US-1")]);
    const seen: Seen[] = [];
    const outcome = await executeStory(run, storyOf(run, "US-1"), scripted([{ action: "continue" }], seen));
    await run.bus.flush();
    assert.deepEqual(outcome, { status: "passed", agentCalls: 0 });
    assert.deepEqual(seen, [{ tier: "fast", pass: 1, routeReason: "set in the PRD" }]);
    assert.deepEqual(
      types(events).filter((t) => t.startsWith("story:")),
      ["story:start", "story:complete"],
    );
    const start = events.find(([t]) => t === "story:start")?.[1];
    assert.deepEqual(start?.routing, {
      complexity: "simple",
      testStrategy: "test-after",
      reason: "set in the PRD",
    });
    assert.equal(run.stories.get("US-1")?.attempts, 1);
  });

  it("a pass's start writes prd.json (in progress, landed before a session) and leaves state.json as it was", async () => {
    const { run, root } = await runContext([story("US-1")]);
    const statePath = join(run.runDir, "state.json");
    const stateBefore = readFileSync(statePath, "utf8");
    const onDisk: Record<string, unknown>[] = [];
    const stages: Stage[] = [
      {
        name: "execution",
        enabled: () => true,
        async execute(ctx) {
          // What a session's guard waits for before it copies gantry's files.
          await ctx.run.stories.landed();
          const prd = JSON.parse(readFileSync(join(root, ".gantry/features/f/prd.json"), "utf8"));
          onDisk.push(prd.userStories[0]);
          return { action: "continue" };
        },
      },
    ];
    assert.equal((await executeStory(run, storyOf(run, "US-1"), stages)).status, "passed");
    assert.equal(onDisk[0]?.status, "in-progress");
    assert.equal(onDisk[0]?.attempts, 1);
    assert.equal(readFileSync(statePath, "utf8"), stateBefore, "state.json is not written at a pass's start");
    assert.equal(run.state.data.iterations, 1, "the count is kept in memory for the next write");
    assert.equal(run.state.data.currentStory, "US-1");
  });

  it("escalate runs the story again one tier up (escalation:tier-change), or at the same tier while it has attempts", async () => {
    const { run, events } = await runContext([story("US-1")], {
      routing: { tierAttempts: { balanced: 2 } },
    });
    const seen: Seen[] = [];
    const escalate: StageResult = { action: "escalate", reason: "tests fail" };
    const outcome = await executeStory(
      run,
      storyOf(run, "US-1"),
      scripted([escalate, escalate, { action: "continue" }], seen),
    );
    await run.bus.flush();
    assert.equal(outcome.status, "passed");
    assert.deepEqual(
      seen.map((s) => [s.pass, s.tier]),
      [
        [1, "fast"],
        [2, "balanced"],
        [3, "balanced"],
      ],
    );
    const changes = events
      .filter(([t]) => t === "escalation:tier-change")
      .map(([, e]) => [e.from, e.to, e.reason]);
    assert.deepEqual(changes, [["fast", "balanced", "tests fail"]]);
  });

  it("asks the router plugins once a pass, and the routing stage gets that pass's answer", async () => {
    const { run } = await runContext([story("US-1")]);
    let asked = 0;
    const router: PluginRouter = {
      plugin: "acme",
      name: "counter",
      async route() {
        asked += 1;
        return { reason: `answer ${asked}` };
      },
    };
    run.plugins = { plugins: [], reviewers: [], routers: [router], agents: [] };
    const seen: Seen[] = [];
    const escalate: StageResult = { action: "escalate", reason: "again" };
    await executeStory(
      run,
      storyOf(run, "US-1"),
      scripted([escalate, escalate, { action: "continue" }], seen),
    );
    assert.equal(asked, 3, "three passes, three questions");
    assert.deepEqual(
      seen.map((s) => s.routeReason),
      ["router counter: answer 1", "router counter: answer 2", "router counter: answer 3"],
    );
  });

  it("past the top tier the story fails (escalation:exhausted, story:fail) and its work is set aside in git stash", async () => {
    const { run, root, events } = await runContext([story("US-1")]);
    const seen: Seen[] = [];
    const outcome = await executeStory(
      run,
      storyOf(run, "US-1"),
      scripted([{ action: "escalate", reason: "still red" }], seen, (ctx) =>
        writeFileSync(join(root, "work.txt"), `pass ${ctx.pass}\n`),
      ),
    );
    await run.bus.flush();
    assert.equal(outcome.status, "failed");
    assert.equal(outcome.reason, "every tier failed; last: still red");
    assert.deepEqual(
      seen.map((s) => s.tier),
      ["fast", "balanced", "powerful"],
    );
    assert.deepEqual(
      types(events).filter((t) => t.startsWith("story:") || t.startsWith("escalation:")),
      [
        "story:start",
        "escalation:tier-change",
        "escalation:tier-change",
        "escalation:exhausted",
        "story:fail",
      ],
    );
    assert.equal(run.stories.status("US-1"), "failed");
    assert.match(git(root, "stash", "list"), /gantry\(US-1\) failed work/);
    assert.equal(git(root, "status", "--porcelain", "--", "work.txt"), "", "the next story starts clean");
  });

  it("a story whose dependency did not pass is blocked: story:skip, no stage runs", async () => {
    const { run, events } = await runContext([
      story("US-1", { status: "failed" }),
      story("US-2", { dependencies: ["US-1"] }),
    ]);
    const seen: Seen[] = [];
    const outcome = await executeStory(run, storyOf(run, "US-2"), scripted([{ action: "continue" }], seen));
    await run.bus.flush();
    assert.deepEqual(outcome, {
      status: "blocked",
      reason: "blocked: depends on US-1 (failed)",
      agentCalls: 0,
    });
    assert.deepEqual(seen, []);
    assert.deepEqual(types(events), ["story:skip"]);
    assert.equal(run.stories.status("US-2"), "blocked");
  });

  it("a pass ended by the retry limit fails the story with the runner's reason", async () => {
    const { run } = await runContext([story("US-1")], { execution: { maxStageRetries: 1 } });
    const outcome = await executeStory(
      run,
      storyOf(run, "US-1"),
      scripted([{ action: "retry", fromStage: "routing", reason: "once more" }], []),
    );
    assert.equal(outcome.status, "failed");
    assert.match(outcome.reason ?? "", /^MAX_STAGE_RETRIES \(1\) exceeded; last: once more/);
  });
});
