import type { EventOf } from "../model/events.js";
import { findingBasis } from "../review/panel/basis.js";
import { oneLine, truncate } from "../util/text.js";

/** What a result event said about the verdict it produced: its duration and the lines a report shows. */
export interface Evidence {
  durationMs?: number;
  lines: string[];
}

const MAX_EVIDENCE = 20;
const MAX_LINE = 2000;

export function verifyEvidence(e: EventOf<"verify:result">): Evidence {
  return {
    durationMs: e.durationMs,
    lines: [
      ...e.failures.map((f) => `${f.file ? `${f.file}: ` : ""}${f.name}: ${f.message}`),
      ...(e.reason ? [e.reason] : []),
      ...(e.scope ? [e.scope] : []),
    ],
  };
}

export function reviewEvidence(e: EventOf<"review:result">): Evidence {
  return {
    lines: e.checks
      .filter((c) => !c.success)
      .flatMap((c) =>
        c.findings.length > 0
          ? c.findings.map((f) => `${c.name}: ${f}`)
          : [`${c.name}: exit code ${c.exitCode}${c.output ? `: ${c.output}` : ""}`],
      ),
  };
}

export function reviewDecisionEvidence(e: EventOf<"review-decision:result">): Evidence {
  const at = (f: { file: string; line: number }) => `${f.file}${f.line > 0 ? `:${f.line}` : ""}`;
  return {
    lines: [
      ...e.reviewers.filter((r) => !r.ok).map((r) => `${r.reviewer}: no valid answer (${r.problem})`),
      ...e.blockers.map(
        (b) =>
          `blocking ${at(b)}: ${b.text} — ${b.basis === "corroborated" ? `raised by ${b.reviewers?.join(" and ")}` : b.basis === "failing-test" ? `${b.reviewer}'s test fails: ${b.testOutcome}` : "test-integrity"}`,
      ),
      ...e.lowered.map((l) => `lowered ${at(l)} (${l.reviewer}): ${l.text} — ${l.loweredBecause}`),
      ...(e.others ?? []).map(
        (o) => `${o.severity} ${at(o)} (${o.reviewer}): ${o.text} — ${findingBasis(o)}`,
      ),
    ],
  };
}

export function storyCheckEvidence(e: EventOf<"story-check:result">): Evidence {
  return {
    lines: e.checks
      .filter((c) => !c.success)
      .map(
        (c) =>
          `${e.phase} ${c.name}: \`${c.command}\` ${c.timedOut ? "timed out" : `exit code ${c.exitCode}`}${c.expect && !c.matched ? `, never printed /${c.expect}/` : ""}`,
      ),
  };
}

/** The lines a report keeps: the first 20, each at most 2,000 characters, control characters gone. */
export function evidenceLines(evidence: Evidence): string[] {
  const lines = evidence.lines.slice(0, MAX_EVIDENCE).map((l) => truncate(oneLineKeepingBreaks(l), MAX_LINE));
  if (evidence.lines.length > MAX_EVIDENCE) lines.push(`… and ${evidence.lines.length - MAX_EVIDENCE} more`);
  return lines;
}

/** Evidence keeps its line breaks (a stack, a diff) but loses escape codes and other control characters. */
function oneLineKeepingBreaks(text: string): string {
  return text
    .split("\n")
    .map((l) => oneLine(l))
    .join("\n")
    .trim();
}
