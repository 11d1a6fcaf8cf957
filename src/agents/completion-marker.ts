import type { AgentRole } from "../model/agent.js";
import {
  COMPLETION_MARKERS,
  type CompletionMarker,
  type MarkerOrNone,
  markersFor,
  NO_MARKER,
} from "../model/markers.js";

export interface MarkerReading {
  marker: MarkerOrNone;
  /** What the agent wrote after a marker that carries a reason (`STORY BLOCKED`, `RESEARCH BLOCKED`). */
  reason?: string;
}

const MAX_REASON = 2000;
const H2 = /^##[ \t]+(.*?)[ \t]*$/gm;

/**
 * The marker a session's final output ends with: its last H2 heading at the start of a line, when that
 * heading is one of the role's markers (a separator and a reason may follow on the same line). Any other
 * last heading, or a marker of another role, is no marker.
 */
export function readMarker(role: AgentRole, finalOutput: string): MarkerReading {
  let last: RegExpExecArray | undefined;
  for (const match of finalOutput.matchAll(H2)) last = match;
  if (!last) return { marker: NO_MARKER };
  const heading = last[1] ?? "";
  const marker = markersFor(role).find(
    (name) => heading === name || new RegExp(`^${name}\\s*[:—–-]\\s`).test(`${heading} `),
  );
  if (!marker) return { marker: NO_MARKER };
  if (!COMPLETION_MARKERS[marker].reason) return { marker };
  const sameLine = heading.slice(marker.length).replace(/^\s*[:—–-]\s*/, "");
  const below = finalOutput.slice((last.index ?? 0) + last[0].length);
  const reason = `${sameLine}\n${below}`.trim().replace(/\s+/g, " ").slice(0, MAX_REASON);
  return { marker, reason: reason || "(the agent gave no reason)" };
}

/** The contract every role's prompt ends with, generated from the markers table. */
export function markerContract(role: AgentRole): string {
  const markers = markersFor(role);
  if (markers.length === 0) return "";
  const lines = markers.map((name: CompletionMarker) => {
    const { meaning, reason } = COMPLETION_MARKERS[name];
    return `- \`## ${name}\` — ${meaning}${reason ? "; write the reason on the lines below it" : ""}.`;
  });
  return [
    "## How to end",
    "",
    "End your final message with exactly one of these H2 headings, alone at the start of a line:",
    "",
    ...lines,
    "",
  ].join("\n");
}
