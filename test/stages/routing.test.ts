import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigSchema } from "../../src/config/schema.js";
import type { PluginRouter, PluginSet } from "../../src/plugins/types.js";
import { type Story, StorySchema } from "../../src/prd/story.js";
import type { RunContext, StoryContext } from "../../src/stages/context.js";
import { decideRoute } from "../../src/stages/route.js";
import { routingStage } from "../../src/stages/routing.js";

const config = ConfigSchema.parse({});
const story = (fields: Partial<Story> & { title: string }): Story =>
  StorySchema.parse({ id: "US-1", description: "", acceptanceCriteria: ["it works"], ...fields });
const router = (name: string, route: PluginRouter["route"], plugin = "acme"): PluginRouter => ({
  plugin,
  name,
  route,
});

describe("routing stage", () => {
  it("the routing stage records the pass's decision on the story without asking the routers again", async () => {
    const updates: unknown[] = [];
    let asked = 0;
    const sizer = router("sizer", async () => {
      asked += 1;
      return { complexity: "complex", reason: "touches billing" };
    });
    const plugins: PluginSet = { plugins: [], reviewers: [], routers: [sizer], agents: [] };
    const run = {
      runId: "r",
      config,
      plugins,
      signal: new AbortController().signal,
      stories: { defer: (id: string, patch: unknown) => updates.push([id, patch]) },
    } as unknown as RunContext;
    const subject = story({ title: "Fix a typo" });
    const route = await decideRoute(subject, config, plugins.routers);
    const ctx = { run, story: subject, tier: "balanced", route } as unknown as StoryContext;
    assert.deepEqual(await routingStage.execute(ctx), { action: "continue" });
    assert.equal(asked, 1, "asked once, by decideRoute");
    assert.deepEqual(updates, [
      [
        "US-1",
        {
          routing: {
            complexity: "complex",
            testStrategy: "test-after",
            tier: "balanced",
            reason: "router sizer: touches billing",
            decidedBy: "gantry",
          },
        },
      ],
    ]);
    const failed = await routingStage.execute({
      ...ctx,
      route: { decision: route.decision, routerError: 'router "x" threw' },
    } as StoryContext);
    assert.deepEqual(failed, { action: "fail", reason: 'router "x" threw' });
  });
});
