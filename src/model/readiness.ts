/** The readiness gate's gap codes: stable names that prd.json, the ledger and answers refer to. */
export const READINESS_GAP_CODES = [
  "no-acceptance-criteria",
  "criterion-not-checkable",
  "description-empty",
  "unknown-dependency",
  "too-large",
  "references-missing",
] as const;
export type ReadinessGapCode = (typeof READINESS_GAP_CODES)[number];

/** The codes that stop a story unless `readiness.blockers` names others. */
export const DEFAULT_READINESS_BLOCKERS: readonly ReadinessGapCode[] = [
  "no-acceptance-criteria",
  "unknown-dependency",
];

export interface ReadinessGap {
  code: ReadinessGapCode;
  severity: "blocker" | "warning";
  /** What the gap is about, when there can be several of one code: a criterion's index, a dependency, a path. */
  subject?: string;
  detail: string;
}

/** What the `story-readiness` question offers: fix the story first, run it anyway, skip it, stop the run. */
export const READINESS_ANSWERS = ["fix", "continue", "skip", "abort"] as const;
export type ReadinessAnswer = (typeof READINESS_ANSWERS)[number];

/** A verified research finding: a clarification whose every citation gantry found verbatim in the tree. */
export interface ReadinessFinding {
  gap: ReadinessGapCode;
  clarification: string;
  /** Acceptance criteria the finding proposes; they count for scoring, never as the story's own criteria. */
  criteria: string[];
  citations: { path: string; line: number; quote: string }[];
}

/** What prd.json keeps of a story's readiness between runs (`userStories[i].readiness`). */
export interface ReadinessRecord {
  /** The blocker set last found, as gap keys (`code` or `code:subject`), sorted. */
  gapSet?: string[];
  /** The answer given to that gap set, once asked. */
  answer?: ReadinessAnswer;
  respondedBy?: string;
  /** Codes a `continue` accepted: they no longer block this story. */
  accepted?: ReadinessGapCode[];
  /** Research sessions spent on this story, across runs. */
  researchRounds?: number;
  findings?: ReadinessFinding[];
}
