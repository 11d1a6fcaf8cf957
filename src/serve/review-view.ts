import type { DecidedFinding, FindingSeverity } from "../model/review.js";
import { findingBasis, findingReviewers } from "../review/panel/basis.js";
import { truncate } from "../util/text.js";
import type { LoggedEvent } from "./events-tail.js";

/** One panel finding as the page shows it: who raised it, where, its severity as raised and as decided, why. */
export interface FindingView {
  reviewers: string[];
  file: string;
  line: number;
  raisedAs: FindingSeverity;
  severity: FindingSeverity;
  ruleId?: string;
  /** The reviewer's words: model output, shown as text only. */
  text: string;
  /** Why it has the severity it has (src/review/panel/basis.ts). */
  basis: string;
  /** blocker: stands; lowered: a blocker lowered to important; other: raised as important or suggestion. */
  kind: "blocker" | "lowered" | "other";
}

/** One `review-decision` of a story: the verdict on a tree, and every finding with its basis. */
export interface ReviewDecisionView {
  attempt: number;
  verdict: string;
  tree: string;
  reason: string;
  findings: FindingView[];
  /** Reviewers without a valid answer (each fails the gate). */
  missing: { reviewer: string; problem: string }[];
}

/**
 * What the page keeps of a story's decisions, bounded whatever the file holds: every client gets the whole
 * view on each change, so a panel that says much must not make every frame large. The run's events.jsonl
 * and ledger keep everything.
 */
export const DECISIONS_KEPT = 5;
const FINDINGS_KEPT = 100;
const TEXT_KEPT = 1000;

/**
 * A `review-decision:result` event read back from events.jsonl, as the page shows it. The file is read
 * defensively (a field of the wrong type becomes empty, never a crash), and what the page holds is bounded.
 */
export function reviewDecisionView(event: LoggedEvent): ReviewDecisionView {
  const list = (value: unknown) => (Array.isArray(value) ? (value as DecidedFinding[]) : []);
  const findings = [
    ...list(event.blockers).map((f) => findingView(f, "blocker")),
    ...list(event.lowered).map((f) => findingView(f, "lowered")),
    ...list(event.others).map((f) => findingView(f, "other")),
  ].slice(0, FINDINGS_KEPT);
  const reviewers = Array.isArray(event.reviewers)
    ? (event.reviewers as { reviewer?: unknown; ok?: unknown; problem?: unknown }[])
    : [];
  const judged = event.judged as { tree?: unknown } | undefined;
  return {
    attempt: Number(event.attempt) || 0,
    verdict: String(event.verdict ?? ""),
    tree: String(judged?.tree ?? ""),
    reason: clip(String(event.reason ?? "")),
    findings,
    missing: reviewers
      .filter((r) => r && r.ok === false)
      .map((r) => ({ reviewer: String(r.reviewer), problem: clip(String(r.problem ?? "no answer")) })),
  };
}

function findingView(finding: DecidedFinding, kind: FindingView["kind"]): FindingView {
  return {
    reviewers: findingReviewers(finding).map(String),
    file: String(finding.file ?? ""),
    line: Number(finding.line) || 0,
    raisedAs: finding.raisedAs,
    severity: finding.severity,
    ...(finding.ruleId ? { ruleId: String(finding.ruleId) } : {}),
    text: clip(String(finding.text ?? "")),
    basis: clip(findingBasis(finding)),
    kind,
  };
}

const clip = (text: string) => truncate(text, TEXT_KEPT + 1);
