import type { AgentRole } from "./agent.js";

/**
 * The agent completion markers (design section 12): the one table the prompts' contract and the parser
 * are both generated from. A marker says how a session ended; it never passes a gate.
 */
export const COMPLETION_MARKERS = {
  "STORY COMPLETE": {
    roles: ["implement", "rectify", "autofix"],
    reason: false,
    meaning: "you did what was asked; gantry's own checks decide whether the story passes",
  },
  "STORY BLOCKED": {
    roles: ["implement", "rectify", "autofix"],
    reason: true,
    meaning:
      "the story cannot be done as written (a missing decision, file or dependency): no further session will help until a person answers",
  },
  "CHECKPOINT REACHED": {
    roles: ["implement"],
    reason: false,
    meaning: "you made real progress but need one more session to finish",
  },
  "PLANNING COMPLETE": {
    roles: ["plan"],
    reason: false,
    meaning: "the stories are written to the file named above",
  },
  "RESEARCH COMPLETE": {
    roles: ["research"],
    reason: false,
    meaning: "your findings are written to the file named above",
  },
  "RESEARCH BLOCKED": {
    roles: ["research"],
    reason: true,
    meaning: "the repository does not answer the questions; only a person can",
  },
} as const satisfies Record<string, { roles: readonly AgentRole[]; reason: boolean; meaning: string }>;

export type CompletionMarker = keyof typeof COMPLETION_MARKERS;
export const MARKER_NAMES = Object.keys(COMPLETION_MARKERS) as CompletionMarker[];
/** What `agent:end` records for a session whose final output carries no marker for its role. */
export const NO_MARKER = "none";
export type MarkerOrNone = CompletionMarker | typeof NO_MARKER;

export function markersFor(role: AgentRole): CompletionMarker[] {
  return MARKER_NAMES.filter((name) => (COMPLETION_MARKERS[name].roles as readonly string[]).includes(role));
}
