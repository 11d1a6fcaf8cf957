import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { gapSet, isCheckable, openBlockers, scoreReadiness } from "../../src/prd/readiness.js";
import { checkFindings } from "../../src/prd/research-findings.js";
import { StorySchema } from "../../src/prd/story.js";

const story = (fields: Record<string, unknown> = {}) =>
  StorySchema.parse({
    id: "US-1",
    title: "Cart total",
    description: "Add total() to src/cart.ts.",
    acceptanceCriteria: ["total() returns the sum of the line prices"],
    ...fields,
  });
const limits = { maxCriteria: 3, maxFiles: 2 };
const score = (fields: Record<string, unknown> = {}, files: string[] = [], exists = (_: string) => true) =>
  scoreReadiness({
    story: story(fields),
    knownIds: new Set(["US-1", "US-0"]),
    filesNamed: files,
    exists,
    limits,
  });
const codes = (gaps: ReturnType<typeof score>) => gaps.map((g) => `${g.code}/${g.severity}`);

describe("scoreReadiness", () => {
  it("finds nothing in a ready story", () => {
    assert.deepEqual(score({}, ["src/cart.ts"]), []);
  });

  it("gives each gap its stable code; the default blockers are no criteria and an unknown dependency", () => {
    assert.deepEqual(codes(score({ acceptanceCriteria: [" "], description: "" })), [
      "no-acceptance-criteria/blocker",
      "description-empty/warning",
    ]);
    assert.deepEqual(codes(score({ dependencies: ["US-0", "US-9"] })), ["unknown-dependency/blocker"]);
    assert.deepEqual(codes(score({ acceptanceCriteria: ["it works", "looks nice"] })), [
      "criterion-not-checkable/warning",
      "criterion-not-checkable/warning",
    ]);
    assert.deepEqual(
      codes(
        score({ acceptanceCriteria: ["a() returns 1", "b() returns 2", "c() returns 3", "d() returns 4"] }),
      ),
      ["too-large/warning"],
    );
    assert.deepEqual(codes(score({}, ["a.ts", "b.ts", "c.ts"])), ["too-large/warning"]);
    assert.deepEqual(
      score({}, ["src/cart.ts", "src/gone.ts"], (p) => p === "src/cart.ts").map((g) => [g.code, g.subject]),
      [["references-missing", "src/gone.ts"]],
    );
  });

  it("blocks on the codes readiness.blockers names", () => {
    const gaps = scoreReadiness({
      story: story({ acceptanceCriteria: ["it works"] }),
      knownIds: new Set(["US-1"]),
      filesNamed: [],
      exists: () => true,
      limits: { ...limits, blockers: ["criterion-not-checkable"] },
    });
    assert.deepEqual(codes(gaps), ["criterion-not-checkable/blocker"]);
    assert.deepEqual(gapSet(openBlockers(gaps)), ["criterion-not-checkable:0"]);
    assert.deepEqual(
      openBlockers(gaps, ["criterion-not-checkable"]),
      [],
      "an accepted code no longer blocks",
    );
  });

  it("counts verified findings' criteria and clarifications, never as the story's own", () => {
    const finding = {
      gap: "no-acceptance-criteria" as const,
      clarification: "in euros",
      criteria: ["shows 12.50 EUR"],
      citations: [],
    };
    const s = story({ acceptanceCriteria: [], description: "" });
    const gaps = scoreReadiness({
      story: s,
      knownIds: new Set(),
      filesNamed: [],
      exists: () => true,
      limits,
      findings: [finding],
    });
    assert.deepEqual(gaps, []);
    assert.deepEqual(s.acceptanceCriteria, []);
  });

  it("tells checkable criteria from ones with no observable outcome", () => {
    for (const c of [
      "total() returns 0 for an empty cart",
      "the page shows an error",
      "exits with code 2",
      "`gantry plan` writes prd.json",
    ])
      assert.equal(isCheckable(c), true, c);
    for (const c of ["it works", "fast", "the code is clean and nice"])
      assert.equal(isCheckable(c), false, c);
  });
});

describe("checkFindings", () => {
  const tree = {
    tracked: new Set(["docs/spec.md", "src/a.ts"]),
    read: (path: string) =>
      path === "docs/spec.md" ? "# Spec\nTotals are shown in euros with two decimals.\n" : "x\n",
  };
  const answer = (citations: unknown[]) => ({
    findings: [{ gap: "no-acceptance-criteria", clarification: "c", criteria: ["shows EUR"], citations }],
  });

  it("keeps a finding whose every citation is found verbatim on its line", () => {
    const out = checkFindings(
      answer([{ path: "./docs/spec.md", line: 2, quote: "shown in euros with two" }]),
      tree,
    );
    assert.equal(out.verified.length, 1);
    assert.deepEqual(out.rejected, []);
  });

  it("rejects a line that does not exist, another line, an untracked or outside file, a short quote, no citation", () => {
    const cases: [unknown[], RegExp][] = [
      [[{ path: "docs/spec.md", line: 3, quote: "shown in euros with two" }], /no line 3/],
      [
        [{ path: "docs/spec.md", line: 1, quote: "shown in euros with two" }],
        /docs\/spec\.md:1 does not hold/,
      ],
      [[{ path: "docs/other.md", line: 1, quote: "shown in euros with two" }], /no such tracked file/],
      [[{ path: "../etc/passwd", line: 1, quote: "root:x:0:0:root" }], /not a file of the project/],
      [
        [{ path: ".gantry/features/f/prd.json", line: 1, quote: "userStories here" }],
        /not a file of the project/,
      ],
      [[{ path: "docs/spec.md", line: 2, quote: "euros" }], /shorter than 12/],
      [[], /cites nothing/],
      [
        [
          { path: "docs/spec.md", line: 2, quote: "shown in euros with two" },
          { path: "docs/spec.md", line: 1, quote: "Totals are shown" },
        ],
        /does not hold/,
      ],
    ];
    for (const [citations, why] of cases) {
      const out = checkFindings(answer(citations), tree);
      assert.equal(out.verified.length, 0, JSON.stringify(citations));
      assert.match(out.rejected[0] ?? "", why);
    }
    assert.match(checkFindings({ findings: "x" }, tree).rejected[0] ?? "", /not findings JSON/);
  });
});
