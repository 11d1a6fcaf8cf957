import { answerFileSection } from "./answer-file.js";
import { markerContract } from "./completion-marker.js";
import { ANCHOR_FORMS, type PromptRule, planSections } from "./critic-prompt.js";

export interface PlanReplyPromptInput {
  feature: string;
  spec: string;
  /** The stories the planner proposed. */
  stories: readonly Record<string, unknown>[];
  rules: readonly PromptRule[];
  /** The critic's objections, as it wrote them. */
  objections: readonly Record<string, unknown>[];
  outputFile: string;
}

/** The planner's second session: answer every objection once, revising the stories for those it accepts. */
export function buildPlanReplyPrompt(input: PlanReplyPromptInput): string {
  return [
    `# Plan: answer the critique of feature ${input.feature}`,
    "",
    "You planned the stories below from the spec. A critic objected to the plan. Answer every objection",
    "exactly once: accept it (revise the stories so one of them carries the fix) or rebut it (show, with an",
    "anchor gantry can find, why the plan is right). There is no second round. Do not change the repository.",
    "",
    ...planSections(input.spec, "Your stories", input.stories, input.rules),
    "## Objections",
    "",
    "```json",
    JSON.stringify(input.objections, null, 2),
    "```",
    "",
    ...answerFileSection(input.outputFile, [
      '{ "replies": [ { "objection": "OBJ-1", "reply": "accept", "anchors": [ { "kind": "story", "story": "US-3" } ] },',
      '    { "objection": "OBJ-2", "reply": "rebut", "anchors": [ { "kind": "spec", "heading": "Constraints" } ] } ],',
      '  "userStories": [ … the stories you revised or added, as in your plan … ] }',
    ]),
    "",
    "An objection that names a binding rule and points at evidence blocks the plan unless it is accepted with",
    "a story anchor naming a story your `userStories` adds or changes, or rebutted with a file, story or spec",
    "anchor that gantry finds (an inference alone does not answer it). `userStories` is merged onto your",
    "stories: an id you answer replaces that story, a new id adds one; the result is checked as a plan is.",
    "",
    ANCHOR_FORMS,
    "",
    markerContract("plan"),
  ].join("\n");
}
