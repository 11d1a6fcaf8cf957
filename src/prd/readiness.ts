import {
  DEFAULT_READINESS_BLOCKERS,
  type ReadinessFinding,
  type ReadinessGap,
  type ReadinessGapCode,
} from "../model/readiness.js";
import type { Story } from "./story.js";

export interface ReadinessLimits {
  /** More acceptance criteria than this is `too-large`. */
  maxCriteria: number;
  /** More files named than this is `too-large`. */
  maxFiles: number;
  /** Codes that block; the rest are warnings. */
  blockers?: readonly ReadinessGapCode[];
}

export interface ReadinessInput {
  story: Story;
  /** Every story id of the PRD. */
  knownIds: ReadonlySet<string>;
  /** The files the story's text names (agents/prompt.ts `filesNamed`). */
  filesNamed: readonly string[];
  /** Whether a path exists in the tree, as gantry found it (git's index or the file system), never a model. */
  exists: (path: string) => boolean;
  limits: ReadinessLimits;
  /** Verified research findings: their criteria and clarifications count as if the story carried them. */
  findings?: readonly ReadinessFinding[];
}

/** Observable outcomes: an action a test can see, a number, a quoted value, a code name or a path. */
const OBSERVABLE =
  /\b(?:return|show|display|print|exit|throw|reject|accept|contain|equal|write|creat|delet|remov|respond|render|log|emit|list|fail|pass|sav|load|send|redirect|includ|match|sort|count|sum|validat|rais|error|status|produc|output|read|add|set|call|stor|persist|appear|hidden|visible|disabl|enabl|limit|within|less|more|least|most|only|never|always)\w*/i;
const CONCRETE = /\d|["'`]|\w\(|\w\.\w|\//;

/** Whether a criterion names an outcome a check could observe (a heuristic: no model is asked). */
export function isCheckable(criterion: string): boolean {
  const text = criterion.trim();
  if (text.split(/\s+/).length < 3 && !CONCRETE.test(text)) return false;
  return OBSERVABLE.test(text) || CONCRETE.test(text);
}

/**
 * Scores a story before any agent is spent on it: the gaps, each with a stable code. Pure: what exists in
 * the tree comes from `exists`.
 */
export function scoreReadiness(input: ReadinessInput): ReadinessGap[] {
  const { story, limits } = input;
  const blockers = new Set<ReadinessGapCode>(limits.blockers ?? DEFAULT_READINESS_BLOCKERS);
  const gaps: ReadinessGap[] = [];
  const add = (code: ReadinessGapCode, detail: string, subject?: string) =>
    gaps.push({
      code,
      severity: blockers.has(code) ? "blocker" : "warning",
      detail,
      ...(subject === undefined ? {} : { subject }),
    });
  const findings = input.findings ?? [];
  const own = story.acceptanceCriteria.filter((c) => c.trim() !== "");
  const proposed = findings.flatMap((f) => f.criteria).filter((c) => c.trim() !== "");
  const criteria = [...own, ...proposed];
  if (criteria.length === 0) add("no-acceptance-criteria", "the story has no acceptance criteria");
  own.forEach((criterion, index) => {
    if (!isCheckable(criterion))
      add("criterion-not-checkable", `"${criterion}" names no observable outcome`, String(index));
  });
  const described = story.description.trim() !== "" || findings.some((f) => f.clarification.trim() !== "");
  if (!described) add("description-empty", "the story has no description");
  for (const dep of story.dependencies) {
    if (!input.knownIds.has(dep)) add("unknown-dependency", `depends on "${dep}", not a story here`, dep);
  }
  if (criteria.length > limits.maxCriteria)
    add("too-large", `${criteria.length} acceptance criteria (at most ${limits.maxCriteria})`, "criteria");
  if (input.filesNamed.length > limits.maxFiles)
    add("too-large", `${input.filesNamed.length} files named (at most ${limits.maxFiles})`, "files");
  for (const path of input.filesNamed) {
    if (!input.exists(path)) add("references-missing", `names ${path}, which is not in the tree`, path);
  }
  return gaps;
}

/** A gap's key in a gap set: the code, and what it is about when that tells one gap of a code from another. */
export function gapKey(gap: ReadinessGap): string {
  return gap.subject === undefined ? gap.code : `${gap.code}:${gap.subject}`;
}

/** The blockers left after the codes a person accepted, as a sorted gap set. */
export function openBlockers(
  gaps: readonly ReadinessGap[],
  accepted: readonly string[] = [],
): ReadinessGap[] {
  return gaps.filter((g) => g.severity === "blocker" && !accepted.includes(g.code));
}

export function gapSet(gaps: readonly ReadinessGap[]): string[] {
  return [...new Set(gaps.map(gapKey))].sort();
}
