import assert from "node:assert/strict";
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
  story,
} from "./harness.js";

const good = (name: string): AgentSession => ({
  write: {
    [`src/${name}.js`]: `export const ${name} = () => 2;\n`,
    [`test/${name}.test.js`]: passingTest(
      name,
      `const { ${name} } = await import("../src/${name}.js");\n  assert.equal(${name}(), 2);`,
    ),
  },
});
const SPEC = "# Checkout spec\nTotals are shown in euros with two decimals, e.g. 12.50 EUR.\n";
const finding = (line: number, quote: string) => ({
  findings: [
    {
      gap: "no-acceptance-criteria",
      clarification: "The spec fixes the currency and the format.",
      criteria: ["the total is shown in euros with two decimals"],
      citations: [{ path: "docs/spec.md", line, quote }],
    },
  ],
});
const byStory = (events: Record<string, unknown>[], type: string, id: string) =>
  events.filter((e) => e.type === type && e.storyId === id);

describe("readiness, research and completion markers through the built CLI", { timeout: 240_000 }, () => {
  it("parks an unready story before any implement session, unblocks one by verified research, asks once per gap set; STORY BLOCKED ends a story at its first tier; CHECKPOINT REACHED gets one more session", async () => {
    const noCriteria = { acceptanceCriteria: [], description: "Show the cart total." };
    const root = makeProject({
      stories: [story("US-1"), story("US-2", noCriteria), story("US-3", noCriteria), story("US-4")],
      plan: {
        "US-1": [{ print: "I looked at it.\n\n## STORY BLOCKED\nThe spec names no currency for totals.\n" }],
        "US-2:research": [
          { output: finding(9, "Totals are shown in euros"), print: "## RESEARCH COMPLETE\n" },
        ],
        "US-3:research": [
          { output: finding(2, "Totals are shown in euros"), print: "## RESEARCH COMPLETE\n" },
        ],
        "US-3": [good("gamma")],
        "US-4": [
          { write: { "src/delta.js": "export const delta = () => 1;\n" }, print: "## CHECKPOINT REACHED\n" },
          { ...good("delta"), print: "## STORY COMPLETE\n" },
        ],
      },
      files: { "docs/spec.md": SPEC },
      config: {
        ...baseConfig(),
        execution: { regression: { mode: "off" } }, // not what this test is about: one full-suite run less
        readiness: {},
        interaction: { triggers: { "story-readiness": {} } },
      },
    });

    const preview = await gantry(root, ["run", "--feature", "f", "--dry-run"]);
    assert.equal(preview.code, 0, preview.stderr);
    assert.match(preview.stdout, /^US-2 .*readiness: no-acceptance-criteria \(parks it\)$/m);
    assert.match(preview.stdout, /^US-1 .*\(set in the PRD\)$/m, "a ready story shows no gaps");

    const first = await gantry(root, ["run", "--feature", "f"]);
    assert.equal(first.code, 1, first.stderr + first.stdout);
    const stories = prdStories(root) as Record<string, Record<string, unknown>>;
    const implement = agentCalls(root).filter((c) => c.role === "implement");
    const { events, ledger } = lastRun(root);

    // STORY BLOCKED: one session at the first tier, no climb, the agent's reason named.
    assert.equal(stories["US-1"]?.status, "failed");
    assert.deepEqual(
      implement.filter((c) => c.story === "US-1").map((c) => c.tier),
      ["fast"],
    );
    assert.equal(byStory(events, "escalation:tier-change", "US-1").length, 0);
    const failed = events.find((e) => e.type === "story:fail") as { reason?: string } | undefined;
    assert.match(String(failed?.reason), /STORY BLOCKED: The spec names no currency for totals\./);
    assert.equal((byStory(events, "agent:end", "US-1")[0] as { marker?: string }).marker, "STORY BLOCKED");

    // A citation of a line that does not exist is rejected: the story is parked, no implement session.
    assert.equal(stories["US-2"]?.status, "blocked");
    assert.equal(implement.filter((c) => c.story === "US-2").length, 0, "no implement session for US-2");
    assert.match(
      String(stories["US-2"]?.failureReason),
      /no-acceptance-criteria.*docs\/spec\.md:9: the file has no line 9/,
    );
    const parked = ledger.filter((l) => l.storyId === "US-2" && l.gate === "readiness");
    assert.deepEqual(
      parked.map((l) => l.verdict),
      ["fail"],
    );
    assert.deepEqual(((parked[0]?.detail ?? {}) as { gapSet?: string[] }).gapSet, ["no-acceptance-criteria"]);
    assert.deepEqual(stories["US-2"]?.readiness, {
      researchRounds: 1,
      gapSet: ["no-acceptance-criteria"],
      answer: "fix",
    });
    const asked = events.filter((e) => e.type === "interaction:request");
    assert.deepEqual(
      asked.map((e) => `${e.trigger} ${e.storyId} ${(e.options as string[]).join(",")} ${e.fallback}`),
      ["story-readiness US-2 fix,continue,skip,abort fix"],
    );

    // A citation gantry finds verbatim unblocks the story.
    assert.equal(stories["US-3"]?.status, "passed");
    const ready = ledger.find((l) => l.storyId === "US-3" && l.gate === "readiness");
    assert.equal(ready?.verdict, "pass");
    assert.equal(((ready?.detail ?? {}) as { findings?: number }).findings, 1);
    assert.equal(byStory(events, "agent:start", "US-3").filter((e) => e.role === "research").length, 1);

    // CHECKPOINT REACHED: the same tier gets one more implement session, then the checks judge.
    assert.equal(stories["US-4"]?.status, "passed");
    assert.deepEqual(
      implement.filter((c) => c.story === "US-4").map((c) => c.tier),
      ["fast", "fast"],
    );
    assert.deepEqual(
      byStory(events, "agent:end", "US-4").map((e) => e.marker),
      ["CHECKPOINT REACHED", "STORY COMPLETE"],
    );

    // The same gap set on a later run: nothing asked, no research left (one round across runs), still parked.
    const second = await gantry(root, ["run", "--feature", "f", "--story", "US-2"]);
    assert.equal(second.code, 1, second.stderr + second.stdout);
    const again = lastRun(root);
    assert.equal(again.events.filter((e) => e.type === "interaction:request").length, 0, "asks nothing new");
    assert.equal(again.events.filter((e) => e.type === "agent:start").length, 0, "no session at all");
    assert.equal(prdStories(root)["US-2"]?.status, "blocked");
  });
});
