export interface ReviewCheck {
  name: string;
  success: boolean;
  exitCode: number | null;
  output: string;
  findings: string[];
}

export interface ReviewResult {
  storyId: string;
  success: boolean;
  checks: ReviewCheck[];
}

export type FindingSeverity = "blocking" | "important" | "suggestion";

/** A test a panel reviewer supplies to show its finding: a file (to add, when `content` is given) and a test name. */
export interface ReviewerTest {
  file: string;
  name?: string;
  content?: string;
}

/** One finding of one panel reviewer, as it answered (file as given; severity as raised). */
export interface PanelFinding {
  reviewer: string;
  file: string;
  line: number;
  severity: FindingSeverity;
  ruleId?: string;
  text: string;
  test?: ReviewerTest;
}

/** Why a blocking finding stays blocking (docs/review.md). */
export type BlockerBasis = "corroborated" | "failing-test" | "test-integrity";

/** A finding after the decision rule: blockers keep their basis, lowered ones say why they were lowered. */
export interface DecidedFinding extends Omit<PanelFinding, "severity"> {
  /** The file with diff prefixes (`a/`, `b/`, `./`) stripped: what findings are compared by. */
  file: string;
  severity: FindingSeverity;
  raisedAs: FindingSeverity;
  basis?: BlockerBasis;
  /** For a corroborated blocker: every reviewer that raised it. */
  reviewers?: string[];
  /** For a blocker lowered to `important`. */
  loweredBecause?: string;
  /** What running the reviewer's test showed, when it supplied one. */
  testOutcome?: string;
}

/** One reviewer's record: its findings, or why there is no valid answer (then the gate fails). */
export interface ReviewerRecord {
  reviewer: string;
  ok: boolean;
  findings: PanelFinding[];
  /** Why the answer counts as missing: no output, not JSON, not the schema, an agent error. */
  problem?: string;
  durationMs: number;
  startedAt: string;
  endedAt: string;
}
