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
}
