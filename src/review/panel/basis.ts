import type { DecidedFinding } from "../../model/review.js";

/**
 * One line saying why a finding of the panel's decision has the severity it has (docs/review.md): what
 * backs a blocker that stands, why a blocker was lowered, or that a finding kept the severity it was
 * raised with. The live page and the reports show it next to the finding.
 */
export function findingBasis(finding: DecidedFinding): string {
  if (finding.raisedAs !== "blocking") return `raised as ${finding.raisedAs}; kept as raised`;
  if (finding.severity !== "blocking") return `lowered: ${finding.loweredBecause ?? "no basis to block"}`;
  switch (finding.basis) {
    case "corroborated":
      return `corroborated by ${andList(finding.reviewers ?? [finding.reviewer])}`;
    case "failing-test": {
      const test = finding.test
        ? `${finding.test.file}${finding.test.name ? ` (${finding.test.name})` : ""}`
        : "the reviewer's test";
      return `confirmed by failing test ${test}${finding.testOutcome ? `: ${finding.testOutcome}` : ""}`;
    }
    case "test-integrity":
      return "test-integrity: a command's evidence, not a model's";
    default:
      return "blocking";
  }
}

/** Who raised a finding: every reviewer of a corroborated blocker, else the one that did. */
export const findingReviewers = (finding: DecidedFinding): string[] =>
  finding.reviewers && finding.reviewers.length > 0 ? [...finding.reviewers] : [finding.reviewer];

const andList = (names: readonly string[]) =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
