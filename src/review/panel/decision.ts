import type { TestIntegrityFinding } from "../../model/events.js";
import type { DecidedFinding, PanelFinding, ReviewerRecord } from "../../model/review.js";

/** Lines at most this far apart (both > 0) in one file are the same finding. */
export const NEAR_LINES = 3;
/** Independent reviewers that must raise the same blocking finding for it to stay blocking on their word. */
export const CORROBORATION = 2;

/** What gantry learnt by running the test a reviewer supplied with a finding. */
export interface TestConfirmation {
  /** It fails on the story's tree and not at the story's base. */
  confirmed: boolean;
  /** One line: what the runs showed ("fails on the story's tree, passes at base", "also fails at base"). */
  said: string;
}

export interface DecisionInput {
  records: readonly ReviewerRecord[];
  /**
   * Reviewer name → what it is (agent and model, or command). Reviewers that are the same thing are one
   * source: saying a thing twice is not corroboration. A reviewer missing here is its own source.
   */
  sources?: ReadonlyMap<string, string>;
  /** The outcome of each supplied test, by the finding object it came with. */
  tests?: ReadonlyMap<PanelFinding, TestConfirmation>;
  /** The failing test-integrity gate's findings on this tree: a command's evidence, never lowered. */
  integrity?: readonly TestIntegrityFinding[];
  /** The files the story's diff touches: a path that is one of them keeps an `a/` or `b/` it starts with. */
  knownFiles?: ReadonlySet<string>;
}

export interface PanelDecision {
  verdict: "pass" | "fail";
  /** The blockers that survive, each once, with their basis. */
  blockers: DecidedFinding[];
  /** Blocking findings lowered to `important`, each with the reason. */
  lowered: DecidedFinding[];
  /** Findings raised as important or suggestion, as they were. */
  others: DecidedFinding[];
  /** Reviewers with no valid answer: each fails the gate. */
  missing: { reviewer: string; problem: string }[];
  /** One line saying why the verdict is what it is. */
  reason: string;
}

/**
 * The panel's decision rule (docs/review.md). A blocking finding stays blocking only when two independent
 * reviewers raised the same finding, or gantry ran the reviewer's test and it failed on the story's tree
 * but not at its base, or it is the test-integrity gate's. Any other blocker is lowered to `important`
 * with the reason, never dropped. A reviewer without a valid answer fails the gate.
 */
export function decidePanel(input: DecisionInput): PanelDecision {
  const sourceOf = (reviewer: string) => input.sources?.get(reviewer) ?? `reviewer:${reviewer}`;
  const missing = input.records
    .filter((r) => !r.ok)
    .map((r) => ({ reviewer: r.reviewer, problem: r.problem ?? "no answer" }));
  const all = input.records
    .filter((r) => r.ok)
    .flatMap((r) => r.findings.map((f) => ({ raw: f, file: normaliseFile(f.file, input.knownFiles) })));
  const raisedBlocking = all.filter((f) => f.raw.severity === "blocking");

  const blockers: DecidedFinding[] = (input.integrity ?? []).map((f) => ({
    reviewer: "test-integrity",
    file: normaliseFile(f.file, input.knownFiles),
    line: f.line ?? 0,
    severity: "blocking",
    raisedAs: "blocking",
    ruleId: `test-integrity/${f.kind}`,
    text: f.evidence,
    basis: "test-integrity",
  }));
  const lowered: DecidedFinding[] = [];
  for (const finding of raisedBlocking) {
    const alike = raisedBlocking.filter((other) => sameFinding(finding, other));
    const sources = new Set(alike.map((f) => sourceOf(f.raw.reviewer)));
    const reviewers = [...new Set(alike.map((f) => f.raw.reviewer))];
    const test = input.tests?.get(finding.raw);
    const decided = decidedFrom(finding.raw, finding.file);
    if (test) decided.testOutcome = test.said;
    if (sources.size >= CORROBORATION) {
      const already = blockers.find((b) => b.basis === "corroborated" && sameFinding(b, finding));
      if (already) {
        for (const r of reviewers) if (!already.reviewers?.includes(r)) already.reviewers?.push(r);
        continue;
      }
      blockers.push({ ...decided, severity: "blocking", basis: "corroborated", reviewers });
    } else if (test?.confirmed) {
      blockers.push({ ...decided, severity: "blocking", basis: "failing-test" });
    } else {
      lowered.push({
        ...decided,
        severity: "important",
        loweredBecause: loweredReason(reviewers, sources, test),
      });
    }
  }
  const others = all.filter((f) => f.raw.severity !== "blocking").map((f) => decidedFrom(f.raw, f.file));

  const verdict = missing.length > 0 || blockers.length > 0 ? "fail" : "pass";
  const reason =
    missing.length > 0
      ? `no valid answer from ${missing.map((m) => `${m.reviewer} (${m.problem})`).join("; ")}`
      : blockers.length > 0
        ? `${blockers.length} blocking finding${blockers.length === 1 ? "" : "s"} stand${blockers.length === 1 ? "s" : ""}: ${blockers.map(describeBlocker).join("; ")}`
        : `no blocker stands${lowered.length > 0 ? ` (${lowered.length} lowered to important)` : ""}`;
  return { verdict, blockers, lowered, others, missing, reason };
}

/** Two findings are the same when they are about one file and share a fingerprint or sit within NEAR_LINES. */
export function sameFinding(
  a: { file: string; line: number; ruleId?: string; text: string } | { raw: PanelFinding; file: string },
  b: { file: string; line: number; ruleId?: string; text: string } | { raw: PanelFinding; file: string },
): boolean {
  const x = "raw" in a ? { ...a.raw, file: a.file } : a;
  const y = "raw" in b ? { ...b.raw, file: b.file } : b;
  if (x.file !== y.file) return false;
  if (x.ruleId && y.ruleId && x.ruleId !== y.ruleId) return false;
  if (fingerprint(x) === fingerprint(y)) return true;
  return x.line > 0 && y.line > 0 && Math.abs(x.line - y.line) <= NEAR_LINES;
}

/** file + ruleId, else file + the text normalised (case, punctuation and spacing do not count). */
export function fingerprint(f: { file: string; ruleId?: string; text: string }): string {
  return f.ruleId ? `${f.file}\0rule\0${f.ruleId}` : `${f.file}\0text\0${normaliseText(f.text)}`;
}

export function normaliseText(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/**
 * A path as a diff may print it, made comparable: `./` dropped, and the `a/` or `b/` of a diff header
 * dropped unless the path with it is one of the story's files.
 */
export function normaliseFile(file: string, known?: ReadonlySet<string>): string {
  let path = file.trim().replaceAll("\\", "/");
  while (path.startsWith("./")) path = path.slice(2);
  if (/^[ab]\//.test(path) && !known?.has(path)) path = path.slice(2);
  while (path.startsWith("./")) path = path.slice(2);
  return path;
}

function decidedFrom(raw: PanelFinding, file: string): DecidedFinding {
  const { severity, ...rest } = raw;
  return { ...rest, file, severity, raisedAs: severity };
}

function loweredReason(
  reviewers: string[],
  sources: Set<string>,
  test: TestConfirmation | undefined,
): string {
  const who =
    reviewers.length > sources.size
      ? `raised by ${reviewers.length} reviewers of one source (${reviewers.join(", ")}), two independent needed`
      : `raised by 1 reviewer (${reviewers.join(", ")}), two needed`;
  return `${who}; ${test ? `its test did not confirm it: ${test.said}` : "no failing test"}`;
}

function describeBlocker(b: DecidedFinding): string {
  const where = `${b.file}${b.line > 0 ? `:${b.line}` : ""}`;
  const basis =
    b.basis === "corroborated"
      ? `raised by ${b.reviewers?.join(" and ")}`
      : b.basis === "failing-test"
        ? `${b.reviewer}'s test fails on the story's tree`
        : "test-integrity";
  return `${where} ${b.ruleId ? `[${b.ruleId}] ` : ""}(${basis})`;
}
