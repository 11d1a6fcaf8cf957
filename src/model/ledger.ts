/**
 * The closed set of gates a verdict can be about; `gates.mandatory` names only these (and plugins' registered
 * gates) but `plan-critique`, which judges a plan (`gantry plan`), not a story.
 */
export const GATE_NAMES = [
  "verify",
  "review",
  "regression",
  "acceptance",
  "test-strength",
  "test-integrity",
  "tamper",
  "readiness",
  "review-decision",
  "story-check",
  "plan-critique",
] as const;
export type GateName = (typeof GATE_NAMES)[number];

export const VERDICTS = ["pass", "fail", "not-applicable", "unverified"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** The exact content a verdict judged: HEAD and the git tree hash of the working tree. */
export interface Judged {
  sha: string;
  tree: string;
}

/** One line of `.gantry/runs/<runId>/ledger.jsonl` (design section 5). */
export interface LedgerEntry {
  v: 1;
  runId: string;
  feature: string;
  storyId: string;
  gate: string;
  verdict: Verdict;
  sha: string;
  tree: string;
  at: string;
  attempt: number;
  detail: Record<string, unknown>;
  /** HMAC-SHA256 of the line without `mac`, keyed outside the tree; absent on lines of older ledgers. */
  mac?: string;
}
