export type VerifyStrategy = "scoped" | "regression" | "deferred-regression" | "acceptance";
export type VerifyStatus = "PASS" | "TEST_FAILURE" | "NO_TESTS" | "UNPARSED" | "TIMEOUT" | "BUILD_ERROR";

export interface TestFailure {
  file?: string;
  name: string;
  message: string;
}

/** The one shape every test run produces (design section 4). */
export interface VerifyResult {
  storyId: string;
  strategy: VerifyStrategy;
  status: VerifyStatus;
  success: boolean;
  runner: string;
  passCount: number;
  failCount: number;
  skipCount: number;
  totalCount: number;
  failures: TestFailure[];
  command: string;
  exitCode: number | null;
  durationMs: number;
  rawOutputTail: string;
  /** Why the status is what it is, when the counts alone do not say (UNPARSED, NO_TESTS, full-suite fallback). */
  reason?: string;
  /** Which tests the command ran and why (`full suite: no testScoped command`, `scoped: 2 test file(s); ...`). */
  scope?: string;
  /** The first lines of the output, when no verdict could be read from it (UNPARSED, NO_TESTS, BUILD_ERROR). */
  outputHead?: string[];
  /**
   * The gate judged after the tests that failed while the tests passed (test-integrity, test-strength,
   * story-check, review-decision): the failures are its findings, not failing tests.
   */
  gate?: FeedbackGate;
}

/** The gates whose failure goes back to rectify like a red test. */
export type FeedbackGate = "test-integrity" | "test-strength" | "story-check" | "review-decision";

/** What a status that is not a test verdict means, in the words the log, ledger, reports and prompts use. */
export const UNREADABLE_MEANING: Partial<Record<VerifyStatus, string>> = {
  UNPARSED: "the test output could not be read",
  NO_TESTS: "no test ran",
  BUILD_ERROR: "the tests did not build or load",
};
