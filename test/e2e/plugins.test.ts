import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type AgentSession,
  agentCalls,
  baseConfig,
  gantry,
  lastRun,
  makeProject,
  passingTest,
  prdStories,
} from "./harness.js";

const story = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  title: `Story ${id}`,
  description: `Implement ${id}`,
  acceptanceCriteria: [`${id} works`],
  status: "pending",
  passes: false,
  ...extra,
});

const implement: AgentSession = {
  write: {
    "src/alpha.js": "export function alpha() {\n  return 2;\n}\n",
    "test/alpha.test.js": passingTest(
      "alpha",
      'const { alpha } = await import("../src/alpha.js");\n  assert.equal(alpha(), 2);',
    ),
  },
};

/** Fails until the marker file exists, which the scripted agent writes in its autofix session. */
const REVIEW_PLUGIN = `import { existsSync } from "node:fs";
import { join } from "node:path";

export default function markerPlugin(options) {
  return {
    name: "marker",
    provides: ["reviewer"],
    reviewers: [
      {
        name: "review-note",
        async review({ root, storyId, changedFiles }) {
          if (existsSync(join(root, options.marker))) return { success: true, findings: [] };
          return {
            success: false,
            findings: [\`\${options.marker}:1 no review note for \${storyId}\`],
            output: \`changed: \${(changedFiles ?? []).join(", ")}\`,
          };
        },
      },
    ],
  };
}
`;

/** An agent and a router from one plugin: the agent writes the story's module itself. */
const AGENT_PLUGIN = `import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export default function inline() {
  return {
    name: "inline",
    provides: ["agent", "router"],
    routers: [{ name: "all-simple", async route() { return { complexity: "simple", reason: "everything is small here" }; } }],
    agents: [
      {
        name: "inline",
        create: () => ({
          name: "inline",
          modelFor: (tier) => \`inline-\${tier}\`,
          async run(request) {
            mkdirSync(join(request.cwd, "src"), { recursive: true });
            writeFileSync(join(request.cwd, "src", "beta.js"), "export const beta = () => 3;\\n");
            return { exitCode: 0, timedOut: false, aborted: false, durationMs: 1, costUsd: 0, costBasis: "exact", output: "done" };
          },
        }),
      },
    ],
  };
}
`;

function withPlugins(plugins: unknown[], patch: Record<string, unknown> = {}) {
  return { ...baseConfig(), plugins, ...patch };
}

describe("plugins, end to end", { concurrency: 3 }, () => {
  it("a reviewer plugin fails the first review with findings, autofix satisfies it, the story passes", async () => {
    const root = makeProject({
      stories: [story("US-1", { routing: { complexity: "simple" } })],
      plan: { "US-1": [implement, { write: { "notes/reviewed.txt": "reviewed\n" } }] },
      config: withPlugins([["./tools/review-plugin.mjs", { marker: "notes/reviewed.txt" }]]),
      files: { "tools/review-plugin.mjs": REVIEW_PLUGIN },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    assert.equal(prdStories(root)["US-1"]?.status, "passed");
    assert.deepEqual(
      agentCalls(root).map((c) => c.role),
      ["implement", "autofix"],
    );

    const { events, ledger } = lastRun(root);
    const starts = events.filter((e) => e.type === "review:start");
    assert.deepEqual(starts[0]?.checks, ["lint", "plugin:review-note"]);
    type Check = { name: string; success: boolean; findings: string[]; output: string };
    const reviews = events.filter((e) => e.type === "review:result") as unknown as {
      success: boolean;
      checks: Check[];
    }[];
    assert.equal(reviews.length, 2);
    const first = reviews[0]?.checks.find((c) => c.name === "plugin:review-note");
    assert.equal(reviews[0]?.success, false);
    assert.deepEqual(first?.findings, ["notes/reviewed.txt:1 no review note for US-1"]);
    assert.match(first?.output ?? "", /changed: .*src\/alpha\.js/);
    assert.equal(reviews[1]?.success, true);
    assert.deepEqual(
      reviews[1]?.checks.map((c) => `${c.name}:${c.success}`),
      ["lint:true", "plugin:review-note:true"],
    );
    assert.deepEqual(
      ledger.filter((e) => e.gate === "review").map((e) => e.verdict),
      ["fail", "pass"],
    );
    const prompt = readFileSync(join(lastRun(root).dir, "prompts", "US-1-2-autofix.md"), "utf8");
    assert.match(prompt, /no review note for US-1/, "the autofix agent is shown the plugin's findings");
  });

  it("a plugin agent named in agent.default does the work, and a router plugin's decision is recorded", async () => {
    const root = makeProject({
      stories: [story("US-2", { title: "Redesign the distributed architecture" })],
      plan: {},
      config: withPlugins(["./tools/inline.mjs"], {
        agent: { default: "inline", timeoutSeconds: 30 },
      }),
      files: { "tools/inline.mjs": AGENT_PLUGIN },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 0, result.stderr + result.stdout);
    const stored = prdStories(root)["US-2"] as unknown as { status: string; routing: Record<string, string> };
    assert.equal(stored.status, "passed");
    assert.equal(stored.routing.complexity, "simple");
    assert.equal(stored.routing.reason, "router all-simple: everything is small here");
    assert.equal(readFileSync(join(root, "src", "beta.js"), "utf8"), "export const beta = () => 3;\n");
    const { events } = lastRun(root);
    const start = events.find((e) => e.type === "agent:start");
    assert.equal(start?.agent, "inline");
    assert.equal(start?.model, "inline-fast", "the router's complexity chose the starting tier");
  });

  it("a broken plugin stops the run before anything ran: exit 2, the entry and the cause named", async () => {
    const root = makeProject({
      stories: [story("US-3")],
      plan: { "US-3": [implement] },
      config: withPlugins(["./tools/review-plugin.mjs", "./tools/broken.mjs"]),
      files: {
        "tools/review-plugin.mjs": REVIEW_PLUGIN,
        "tools/broken.mjs": "export default function () {\n  return { name: 'broken' provides: [] };\n}\n",
      },
    });
    const result = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(result.code, 2, result.stderr + result.stdout);
    assert.equal(
      result.stderr.trim(),
      "gantry: .gantry/config.json: plugins[1]: ./tools/broken.mjs failed to load: SyntaxError: Unexpected identifier 'provides' (tools/broken.mjs:2) [GANTRY_E_PLUGIN]",
    );
    assert.equal(existsSync(join(root, ".gantry", "runs")), false, "no run directory");
    assert.deepEqual(agentCalls(root), []);
    assert.equal(prdStories(root)["US-3"]?.status, "pending");
  });
});
