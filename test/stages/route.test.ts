import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigSchema } from "../../src/config/schema.js";
import { PluginError } from "../../src/plugins/errors.js";
import type { PluginRouter } from "../../src/plugins/types.js";
import { type Story, StorySchema } from "../../src/prd/story.js";
import { decideRoute, routeStory, routeWithPlugins } from "../../src/stages/route.js";

const config = ConfigSchema.parse({});
const story = (fields: Partial<Story> & { title: string }): Story =>
  StorySchema.parse({ id: "US-1", description: "", acceptanceCriteria: ["it works"], ...fields });
const router = (name: string, route: PluginRouter["route"], plugin = "acme"): PluginRouter => ({
  plugin,
  name,
  route,
});

describe("routeStory (keywords and size)", () => {
  it("maps keywords to complexity and complexity to the configured tier", () => {
    const cases: [string, string, string, string][] = [
      ["Fix a typo in the README", "simple", "fast", 'keyword "typo"'],
      ["Store the product list in the database", "complex", "powerful", 'keyword "database"'],
      ["Fix the race condition in the distributed lock", "expert", "powerful", 'keyword "race condition"'],
      ["Add a checkout button", "medium", "balanced", "no strong signal"],
    ];
    for (const [title, complexity, tier, reason] of cases) {
      const decision = routeStory(story({ title }), config);
      assert.deepEqual(
        [decision.complexity, decision.tier, decision.reason],
        [complexity, tier, reason],
        title,
      );
    }
  });

  it("calls a story with many acceptance criteria complex", () => {
    const criteria = Array.from({ length: 9 }, (_, i) => `criterion ${i}`);
    const decision = routeStory(story({ title: "Rename a label", acceptanceCriteria: criteria }), config);
    assert.equal(decision.complexity, "complex");
    assert.match(decision.reason, /^9 acceptance criteria/);
  });

  it("takes story.routing.complexity over the keywords", () => {
    const decision = routeStory(
      story({ title: "Fix a typo", routing: { complexity: "expert", testStrategy: "tdd" } }),
      config,
    );
    assert.deepEqual(decision, {
      complexity: "expert",
      testStrategy: "tdd",
      tier: "powerful",
      reason: "set in the PRD",
    });
  });

  it("follows routing.complexityTier", () => {
    const custom = ConfigSchema.parse({ routing: { complexityTier: { simple: "balanced" } } });
    assert.equal(routeStory(story({ title: "Fix a typo" }), custom).tier, "balanced");
  });
});

describe("routeWithPlugins", () => {
  it("asks the routers first: the first with an opinion decides, even over story.routing", async () => {
    const asked: string[] = [];
    const decision = await routeWithPlugins(
      story({ title: "Redesign the architecture", routing: { complexity: "expert" } }),
      config,
      [
        router("sizer", async (s) => {
          asked.push(`sizer:${s.id}`);
          return { complexity: "simple", reason: "one file" };
        }),
        router("never", async () => {
          asked.push("never");
          return { tier: "powerful" };
        }),
      ],
    );
    assert.deepEqual(asked, ["sizer:US-1"]);
    assert.deepEqual(decision, {
      complexity: "simple",
      tier: "fast",
      testStrategy: "test-after",
      reason: "router sizer: one file",
    });
  });

  it("falls through a router with no opinion to the next, then to routeStory", async () => {
    const silent = router("silent", async () => undefined);
    const empty = router("empty", async () => ({}));
    const tierOnly = router("tier-only", async () => ({ tier: "powerful" }));
    const subject = story({ title: "Fix a typo" });
    assert.deepEqual(await routeWithPlugins(subject, config, [silent, empty]), routeStory(subject, config));
    assert.deepEqual(await routeWithPlugins(subject, config, [silent, empty, tierOnly]), {
      complexity: "simple",
      tier: "powerful",
      testStrategy: "test-after",
      reason: "router tier-only: tier",
    });
    assert.deepEqual(await routeWithPlugins(subject, config, []), routeStory(subject, config));
  });

  it("rejects a router answering a tier that is not in routing.tiers, naming it", async () => {
    await assert.rejects(
      routeWithPlugins(story({ title: "x" }), config, [router("sizer", async () => ({ tier: "huge" }))]),
      (error: Error) =>
        error instanceof PluginError &&
        error.plugin === "acme" &&
        error.message ===
          'router "sizer" (plugin "acme") answered tier: expected one of routing.tiers (fast, balanced, powerful), got string "huge"',
    );
  });

  it("rejects other bad answers, a throw and a router that never answers, naming the router", async () => {
    const subject = story({ title: "x" });
    const cases: [PluginRouter["route"], RegExp][] = [
      [
        async () => ({ complexity: "trivial" }) as never,
        /answered complexity: expected one of simple, medium, complex, expert/,
      ],
      [
        async () => ({ testStrategy: "" }),
        /answered testStrategy: expected a non-empty string, got string ""/,
      ],
      [
        async () => ({ model: "opus" }) as never,
        /answered with unknown keys: expected only complexity, tier/,
      ],
      [async () => "fast" as never, /answered with a value: expected an object/],
      [
        async () => {
          throw new Error("model service down");
        },
        /router "r" \(plugin "acme"\) threw: Error: model service down/,
      ],
      [() => new Promise(() => {}), /router "r" \(plugin "acme"\) did not answer within 0\.05 s/],
    ];
    for (const [route, expected] of cases) {
      await assert.rejects(
        routeWithPlugins(subject, config, [router("r", route)], { timeoutMs: 50 }),
        (error: Error) => error instanceof PluginError && expected.test(error.message),
      );
    }
  });

  it("hands each router a copy of the story", async () => {
    const subject = story({ title: "x", tags: ["a"] });
    await routeWithPlugins(subject, config, [
      router("meddler", async (s) => {
        s.tags?.push("b");
        s.title = "changed";
        return undefined;
      }),
    ]);
    assert.deepEqual([subject.title, subject.tags], ["x", ["a"]]);
  });

  it("decideRoute keeps the heuristic decision and names a router that misbehaves", async () => {
    const subject = story({ title: "Fix a typo" });
    const broken = router("broken", async () => ({ tier: "huge" }));
    const route = await decideRoute(subject, config, [broken]);
    assert.deepEqual(route.decision, routeStory(subject, config));
    assert.match(route.routerError ?? "", /^router "broken" \(plugin "acme"\) answered tier/);
    assert.deepEqual(await decideRoute(subject, config, []), { decision: routeStory(subject, config) });
  });
});
