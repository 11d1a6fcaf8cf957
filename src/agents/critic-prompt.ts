import { answerFileSection } from "./answer-file.js";

/** A project rule as a prompt shows it. */
export interface PromptRule {
  id: string;
  status: string;
  text: string;
}

export interface CriticPromptInput {
  feature: string;
  spec: string;
  /** The proposed stories, as the planner answered them. */
  stories: readonly Record<string, unknown>[];
  rules: readonly PromptRule[];
  outputFile: string;
}

/** How an anchor is written, shared by the critic's prompt and the planner's reply prompt. */
export const ANCHOR_FORMS = [
  'File: `{ "kind": "file", "path": "src/cart.js", "line": 12, "quote": "text copied verbatim from that line" }`',
  '(a tracked file, its 1-based line, at least 12 characters of it). Story: `{ "kind": "story", "story": "US-2" }`.',
  'Spec: `{ "kind": "spec", "heading": "Constraints" }` (a heading\'s exact text). Inference:',
  '`{ "kind": "inference", "reasoning": "…" }`. gantry checks every anchor; one it cannot find counts for nothing.',
].join("\n");

function rulesSection(rules: readonly PromptRule[]): string[] {
  if (rules.length === 0) return ["(the project has no rules file)"];
  return rules.map((r) => `- ${r.id} (${r.status}): ${r.text}`);
}

/** What the critic and the planner's reply both read: the spec, the stories, the project's rules. */
export function planSections(
  spec: string,
  storiesHeading: string,
  stories: readonly Record<string, unknown>[],
  rules: readonly PromptRule[],
): string[] {
  return [
    "## Spec",
    "",
    spec.trim(),
    "",
    `## ${storiesHeading}`,
    "",
    "```json",
    JSON.stringify(stories, null, 2),
    "```",
    "",
    "## Project rules",
    "",
    ...rulesSection(rules),
    "",
  ];
}

/** The critic role's prompt: the spec, the proposed stories and the rules in; objections as JSON in a file out. */
export function buildCriticPrompt(input: CriticPromptInput): string {
  return [
    `# Critique: the plan of feature ${input.feature}`,
    "",
    "A planner turned the spec below into the stories below. Before anything is built on them, say why this",
    "plan will fail: scope (a story does too much, too little, or what the spec does not ask), feasibility",
    "(it cannot work in this repository), security, or a better alternative. Read the repository to ground",
    "what you say; do not change it (the tree is read-only to you). Write nothing but the answer file.",
    "",
    ...planSections(input.spec, "Proposed stories", input.stories, input.rules),
    "An objection that names a binding rule the plan breaks (`rule`) and points at evidence gantry can find",
    "stops the plan until the planner answers it. Name a rule only when the plan breaks it.",
    "",
    ...answerFileSection(input.outputFile, [
      '{ "objections": [ { "id": "OBJ-1", "lens": "scope", "claim": "…", "rule": "R-1",',
      '    "anchors": [ { "kind": "story", "story": "US-1" } ] } ] }',
    ]),
    "",
    "Ids OBJ-1, OBJ-2, …; lens one of scope, feasibility, security, alternative; `rule` only when one is broken;",
    'at least one anchor each. `{ "objections": [] }` when you find nothing that matters.',
    "",
    ANCHOR_FORMS,
    "",
  ].join("\n");
}
