import type { VerifyResult } from "../model/verify.js";
import type { TestIntegrityResult } from "../verification/strategies/test-integrity.js";

/**
 * The failure rectify gets when the tests pass but the test-integrity gate failed: one failure per
 * finding (file, line, what), and an explanation as the output tail the rectify prompt quotes. The
 * scoped run's counts stay as they were; the status says it is not a pass.
 */
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
  return {
    ...passed,
    status: "TEST_FAILURE",
    success: false,
    failCount: failures.length,
    failures,
    reason: `test-integrity: ${integrity.reason ?? "the story weakened the tests"}`,
    rawOutputTail: [
      `The tests pass, but gantry compared the tests and their configuration with the story's base commit`,
      `(${baseSha.slice(0, 12)}) and found that this story weakened what judges it:`,
      ...integrity.findings.map(
        (f) => `  - ${f.file}${f.line ? `:${f.line}` : ""} [${f.kind}] ${f.evidence}`,
      ),
      `Restore the deleted or renamed tests, remove the skip / todo / only markers you added, keep every test`,
      `that ran before running, and leave the test command and the runner configuration as they were.`,
      `Make the story's code satisfy the tests instead. The story cannot pass while these remain.`,
    ].join("\n"),
  };
}
