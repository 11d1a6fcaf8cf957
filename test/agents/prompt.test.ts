import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildPrompt, filesNamed, type PromptInput } from "../../src/agents/prompt.js";
import type { ReviewCheck } from "../../src/model/review.js";
import type { TestFailure } from "../../src/model/verify.js";
import { type Story, StorySchema } from "../../src/prd/story.js";

const story = (fields: Record<string, unknown> = {}): Story =>
  StorySchema.parse({
    id: "US-002",
    title: "Cart total",
    description: "Add `total()` to src/cart.ts and export it from src/index.ts; see docs/cart.md.",
    acceptanceCriteria: ["total() sums line prices", "an empty cart totals 0"],
    dependencies: ["US-001"],
    ...fields,
  });

const input = (fields: Partial<PromptInput> = {}): PromptInput => ({
  role: "implement",
  story: story(),
  feature: "checkout",
  dependencies: [{ id: "US-001", title: "Cart lines", status: "passed" }],
  ...fields,
});

/** Asserts each needle occurs, in this order. */
function inOrder(text: string, needles: string[]): void {
  let from = 0;
  for (const needle of needles) {
    const at = text.indexOf(needle, from);
    assert.ok(at >= 0, `"${needle}" missing or out of order`);
    from = at + needle.length;
  }
}

const failures = (n: number, message = "expected 3, got 2"): TestFailure[] =>
  Array.from({ length: n }, (_, i) => ({ file: `test/t${i}.test.js`, name: `case ${i}`, message }));

describe("buildPrompt", () => {
  it("tells the agent of a resumed story, after the acceptance criteria, that its earlier work is in the tree", () => {
    for (const role of ["implement", "rectify"] as const) {
      const text = buildPrompt(input({ role, resumed: true }));
      inOrder(text, [
        "## Acceptance criteria",
        "## Earlier work",
        "already in the working tree",
        "Leave your changes",
      ]);
      assert.ok(!buildPrompt(input({ role })).includes("## Earlier work"));
    }
  });

  it("puts the story first, then its dependencies and files, then the instructions", () => {
    const text = buildPrompt(input());
    inOrder(text, [
      "# Implement: US-002 — Cart total",
      "Feature: checkout",
      "## Description",
      "## Acceptance criteria",
      "- total() sums line prices",
      "- an empty cart totals 0",
      "## Dependencies",
      "- US-001 — Cart lines (passed)",
      "## Files the story names",
      "- src/cart.ts",
      "- src/index.ts",
      "- docs/cart.md",
      "Implement this story",
    ]);
  });

  it("lists a dependency it was told nothing about as unknown", () => {
    const text = buildPrompt(input({ story: story({ dependencies: ["US-001", "US-009"] }) }));
    inOrder(text, ["- US-001 — Cart lines (passed)", "- US-009 (status unknown)"]);
  });

  it("gives the clarifications research settled, with their verified citations, after the criteria", () => {
    const finding = {
      gap: "no-acceptance-criteria",
      clarification: "Totals are in euros.",
      criteria: ["shows 12.50 EUR"],
      citations: [{ path: "docs/spec.md", line: 2, quote: "Totals are shown in euros" }],
    };
    const text = buildPrompt(input({ story: story({ readiness: { findings: [finding] } }) }));
    inOrder(text, [
      "## Acceptance criteria",
      "## Clarifications (found in the repository by research",
      "- Totals are in euros. Proposed criteria: shows 12.50 EUR. (docs/spec.md:2)",
      "## Dependencies",
    ]);
    assert.doesNotMatch(buildPrompt(input()), /Clarifications/);
  });

  it("gives rectify the structured failures first, then a bounded tail of the raw output", () => {
    const raw = `${"early noise\n".repeat(2000)}the last line of the log`;
    const text = buildPrompt(input({ role: "rectify", failures: failures(2), rawOutputTail: raw }));
    inOrder(text, [
      "# Fix failing tests",
      "## Acceptance criteria",
      "## Failing tests",
      "- test/t0.test.js: case 0: expected 3, got 2",
      "- test/t1.test.js: case 1: expected 3, got 2",
      "### Output (tail)",
      "the last line of the log",
      "Make the failing tests above pass",
    ]);
    const tail = text.slice(
      text.indexOf("### Output (tail)"),
      text.indexOf("Make the failing tests above pass"),
    );
    assert.ok(tail.length < 8_200, "the raw output is bounded");
  });

  it("gives autofix the failing checks' findings, or their output when none were parsed", () => {
    const checks: ReviewCheck[] = [
      { name: "lint", success: false, exitCode: 1, output: "…", findings: ["src/cart.ts:3 useConst"] },
      { name: "typecheck", success: false, exitCode: 2, output: "error TS2322 in src/cart.ts", findings: [] },
      { name: "format", success: true, exitCode: 0, output: "", findings: [] },
    ];
    const text = buildPrompt(input({ role: "autofix", findings: checks }));
    inOrder(text, [
      "# Fix review findings",
      "## Review findings",
      "### lint (exit code 1)",
      "- src/cart.ts:3 useConst",
      "### typecheck (exit code 2), output tail",
      "error TS2322 in src/cart.ts",
      "Fix the findings above",
    ]);
    assert.ok(!text.includes("### format"));
  });

  it("gives rectify and autofix the review panel's findings that do not block, with why a blocker was lowered", () => {
    const reviewNotes = [
      {
        reviewer: "opus",
        file: "src/cart.ts",
        line: 12,
        severity: "important" as const,
        raisedAs: "blocking" as const,
        ruleId: "rounding",
        text: "rounds per line",
        loweredBecause: "raised by 1 reviewer (opus), two needed; no failing test",
      },
      {
        reviewer: "gpt",
        file: "src/cart.ts",
        line: 0,
        severity: "important" as const,
        raisedAs: "important" as const,
        text: "long file",
      },
    ];
    for (const role of ["rectify", "autofix"] as const) {
      const text = buildPrompt(input({ role, reviewNotes }));
      inOrder(text, [
        "## Review panel findings to fix",
        "- src/cart.ts:12 [rounding] (opus): rounds per line — raised as blocking, lowered: raised by 1 reviewer (opus), two needed; no failing test",
        "- src/cart.ts (gpt): long file",
      ]);
    }
    assert.doesNotMatch(buildPrompt(input({ role: "implement", reviewNotes })), /Review panel/);
  });

  it("stays within maxChars by cutting the raw output first, keeping every failure", () => {
    const raw = "x".repeat(7_000);
    const full = buildPrompt(input({ role: "rectify", failures: failures(20), rawOutputTail: raw }));
    const max = full.length - 3_000;
    const text = buildPrompt(
      input({ role: "rectify", failures: failures(20), rawOutputTail: raw, maxChars: max }),
    );
    assert.ok(text.length <= max, `${text.length} > ${max}`);
    for (let i = 0; i < 20; i++) assert.ok(text.includes(`case ${i}:`), `failure ${i} was cut`);
    assert.match(text, /earlier output cut/);
  });

  it("then cuts failures, the description and the rest, but never the acceptance criteria", () => {
    const criteria = Array.from({ length: 30 }, (_, i) => `criterion ${i}: ${"c".repeat(100)}`);
    const text = buildPrompt(
      input({
        role: "rectify",
        story: story({ acceptanceCriteria: criteria, description: "d".repeat(20_000) }),
        failures: failures(500, "m".repeat(300)),
        rawOutputTail: "r".repeat(50_000),
        maxChars: 8_000,
      }),
    );
    assert.ok(text.length <= 8_000, `${text.length}`);
    for (const c of criteria) assert.ok(text.includes(c), "an acceptance criterion was cut");
    assert.match(text, /more left out to fit the prompt size limit/);
    inOrder(text, [
      "# Fix failing tests",
      "## Acceptance criteria",
      "criterion 29",
      "Make the failing tests above pass",
    ]);
  });

  it("keeps the acceptance criteria even when they alone are over the limit", () => {
    const criteria = Array.from({ length: 10 }, (_, i) => `criterion ${i}: ${"c".repeat(1_000)}`);
    const text = buildPrompt(input({ story: story({ acceptanceCriteria: criteria }), maxChars: 2_000 }));
    for (const c of criteria) assert.ok(text.includes(c));
    assert.ok(!text.includes("## Description"), "what may be cut was cut");
  });

  it("defaults to 60,000 characters", () => {
    const text = buildPrompt(input({ role: "rectify", failures: failures(1000, "m".repeat(200)) }));
    assert.ok(text.length <= 60_000);
  });
});

describe("filesNamed", () => {
  it("finds paths and file names in the story's text, once each, and not library names or URLs", () => {
    const s = story({
      title: "Update package.json",
      description:
        "Change src/cart.ts (and ./lib/util.js). Built on Node.js and Vue.js; see https://example.com/docs/page.html. Bump to 1.2.3, e.g. in README.md.",
      acceptanceCriteria: ["`src/cart.ts` exports total", "tests in test/cart.test.ts pass"],
    });
    assert.deepEqual(filesNamed(s), [
      "package.json",
      "src/cart.ts",
      "lib/util.js",
      "README.md",
      "test/cart.test.ts",
    ]);
  });

  it("names one file once however it is written: with ./, and as a bare name beside its path", () => {
    const s = story({
      title: "Edit src/cart.ts",
      description: "so that cart.ts exports total; see ./src/cart.ts and util.ts",
      acceptanceCriteria: ["src/cart.ts has total"],
    });
    assert.deepEqual(filesNamed(s), ["src/cart.ts", "util.ts"]);
  });
});
