/**
 * `gantry plan` with its critic, as the scripted model server plays it for a real CLI: the planner's turn
 * writes the stories to the answer file its prompt names, the critic's turn first tries to write in the
 * tree (its session is read-only: the write must be refused) and then writes its objection, and the
 * planner's reply turn writes its replies. Each turn is told apart by its prompt's first line.
 */
import { BINDING, US1, US2 } from "../../../e2e/plan-critic-project.js";
import type { Script } from "../../model-server/script.js";

/** The file the critic tries to write in the tree. */
export const CRITIC_PROBE = "src/critic-was-here.js";

export const ACCEPT = {
  replies: [{ objection: "OBJ-1", reply: "accept", anchors: [{ kind: "story", story: "US-2" }] }],
  userStories: [US2],
};
export const REBUT_BY_INFERENCE = {
  replies: [
    { objection: "OBJ-1", reply: "rebut", anchors: [{ kind: "inference", reasoning: "tests come later" }] },
  ],
};

/** The answer file a plan prompt names ("Write JSON to <file>:"), as it appears in a request's text. */
const ANSWER_FILE = /Write JSON to ([^\s"\\]+\.json):/;
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** The three turns of one plan with its critic; the planner's reply is `reply`. */
export function planRound(reply: unknown): Script {
  return [
    {
      name: "reply",
      when: /# Plan: answer the critique of feature/,
      steps: [
        { kind: "write", path: ANSWER_FILE, content: json(reply) },
        { kind: "final", text: "Every objection answered.\n\n## PLANNING COMPLETE" },
      ],
    },
    {
      name: "critic",
      when: /# Critique: the plan of feature/,
      steps: [
        { kind: "write", path: CRITIC_PROBE, content: "export const critic = 1;\n" },
        { kind: "write", path: ANSWER_FILE, content: json({ objections: [BINDING] }) },
        { kind: "final", text: "One objection written." },
      ],
    },
    {
      name: "plan",
      when: /# Plan: feature /,
      steps: [
        { kind: "write", path: ANSWER_FILE, content: json({ userStories: [US1] }) },
        { kind: "final", text: "One story planned.\n\n## PLANNING COMPLETE" },
      ],
    },
  ];
}
