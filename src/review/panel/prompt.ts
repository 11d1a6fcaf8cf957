import type { Story } from "../../prd/story.js";

/** The most of the story's diff a reviewer is given; the rest is said to be cut. */
export const MAX_DIFF_CHARS = 120_000;

/**
 * What one panel reviewer is given: the story, its acceptance criteria and its diff against the story's
 * base, and the answer format. The same text for every reviewer: none sees another's answer.
 */
export function reviewerPrompt(input: {
  story: Story;
  feature: string;
  baseSha: string;
  diff: string;
}): string {
  const { story } = input;
  const diff =
    input.diff.length > MAX_DIFF_CHARS
      ? `${input.diff.slice(0, MAX_DIFF_CHARS)}\n[… diff cut at ${MAX_DIFF_CHARS} characters of ${input.diff.length}]`
      : input.diff;
  const fence = diff.includes("```") ? "````" : "```";
  const criteria = story.acceptanceCriteria.map((c) => `- ${c}`).join("\n") || "(none given)";
  return [
    `# Review: ${story.id} — ${story.title}`,
    "",
    `Feature: ${input.feature}`,
    "",
    "## Description",
    "",
    story.description.trim() || "(none)",
    "",
    "## Acceptance criteria",
    "",
    criteria,
    "",
    `## The story's change (git diff against its base commit ${input.baseSha.slice(0, 12)})`,
    "",
    fence,
    diff.trim() || "(no change)",
    fence,
    "",
    "## What to do",
    "",
    "Review this change against the story and its acceptance criteria. The working tree is read-only for you;",
    "do not try to change it. Judge correctness, missed criteria, security and data loss first, then the rest.",
    "",
    "Answer with one JSON object and nothing else (schemas/review-answer.schema.json):",
    "",
    '{"findings": [{"file": "src/x.ts", "line": 12, "severity": "blocking", "ruleId": "off-by-one",',
    '  "text": "what is wrong and why", "test": {"file": "test/x.test.js", "name": "the test", "content": "…"}}]}',
    "",
    "- `line` is 1-based; 0 means the whole file. `severity` is `blocking`, `important` or `suggestion`.",
    "- `ruleId` (optional) names the kind of problem, so the same problem found by others is recognised.",
    "- `test` (optional) shows a blocking problem: a test file (with `content` to add a new one) and the test's",
    "  name. gantry runs it on this change and at the base commit; a test that fails here and not there makes",
    "  the finding block the story. Without such a test a blocker needs another reviewer to raise it too.",
    '- No findings: {"findings": []}.',
    "",
  ].join("\n");
}
