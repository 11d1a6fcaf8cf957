import type { FeedbackGate, TestFailure, VerifyResult } from "../model/verify.js";
import type { TestIntegrityResult } from "../verification/strategies/test-integrity.js";
import type { TestStrengthResult } from "../verification/strategies/test-strength.js";

/**
 * The failure rectify works from when the tests passed but a gate judged after them did not: the scoped
 * run's counts stay as they were, the status says it is not a pass, one failure per finding, and an
 * explanation as the output tail the rectify prompt quotes.
 */
export function gateFailure(
  passed: VerifyResult,
  gate: FeedbackGate,
  failures: TestFailure[],
  reason: string,
  explanation: string[],
): VerifyResult {
  return {
    ...passed,
    status: "TEST_FAILURE",
    success: false,
    failCount: failures.length,
    failures,
    reason,
    rawOutputTail: explanation.join("\n"),
    gate,
  };
}

/** test-integrity failed: the story deleted, skipped or weakened what judges it. */
export function integrityFailure(
  passed: VerifyResult,
  integrity: TestIntegrityResult,
  baseSha: string,
): VerifyResult {
  const failures = integrity.findings.map((f) => ({
    file: f.file,
    name: `test-integrity: ${f.kind}`,
    message: `${f.line ? `line ${f.line}: ` : ""}${f.evidence}`,
  }));
  return gateFailure(
    passed,
    "test-integrity",
    failures,
    `test-integrity: ${integrity.reason ?? "the story weakened the tests"}`,
    [
      `The tests pass, but gantry compared the tests and their configuration with the story's base commit`,
      `(${baseSha.slice(0, 12)}) and found that this story weakened what judges it:`,
      ...integrity.findings.map(
        (f) => `  - ${f.file}${f.line ? `:${f.line}` : ""} [${f.kind}] ${f.evidence}`,
      ),
      `Restore the deleted or renamed tests, remove the skip / todo / only markers you added, keep every test`,
      `that ran before running, and leave the test command and the runner configuration as they were.`,
      `Remove the lint / type-check suppressions you added (eslint-disable, biome-ignore, @ts-ignore, noqa, ...)`,
      `and leave the lint and type-check commands and their configuration as they were.`,
      `Leave the scripts the story checks and reviewers run as they were.`,
      `Production code must not ask whether a test runner is running it, nor touch the runner's reports.`,
      `Make the story's code satisfy the tests and the checks instead. The story cannot pass while these remain.`,
    ],
  );
}

/** test-strength failed: tests that still pass without the story's production change. */
export function weakTests(passed: VerifyResult, strength: TestStrengthResult, baseSha: string): VerifyResult {
  const weak = strength.files.filter((f) => f.outcome === "passes-without-change");
  const failures: TestFailure[] = weak.map((f) => ({
    file: f.file,
    name: "test-strength",
    message: "passes without the story's production change; it does not exercise it",
  }));
  // A story that only deleted or skipped tests has no weak file to name: the reason says what it did.
  if (failures.length === 0)
    failures.push({ file: "", name: "test-strength", message: strength.reason ?? "" });
  return gateFailure(
    passed,
    "test-strength",
    failures,
    `test-strength: ${strength.reason ?? "tests pass without the story's change"}`,
    [
      `The tests pass, but gantry also ran each test file this story added or changed against the production`,
      `code as it was before the story (commit ${baseSha.slice(0, 12)}), with only the story's test files in place.`,
      `These still passed there, so they do not test what the story changed:`,
      ...weak.map((f) => `  - ${f.file}`),
      `Make them assert the new behaviour, so that they fail without the story's production change.`,
    ],
  );
}
