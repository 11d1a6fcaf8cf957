import type { VerifyStatus } from "../model/verify.js";
import type { ParsedTests } from "./parsers/types.js";

export interface RunOutcome {
  exitCode: number | null;
  timedOut: boolean;
  spawnError?: string;
}

/**
 * The one rule every test run is judged by: PASS needs exit code 0, a parsed count of executed tests
 * above zero, and no failures. A timeout is never a pass; zero tests and unreadable output are not either.
 */
export function judgeStatus(
  parsed: ParsedTests,
  outcome: RunOutcome,
): { status: VerifyStatus; reason?: string } {
  if (outcome.timedOut)
    return { status: "TIMEOUT", reason: "the test command did not finish within its timeout" };
  if (outcome.spawnError)
    return { status: "BUILD_ERROR", reason: `the test command could not start: ${outcome.spawnError}` };
  if (parsed.status === "BUILD_ERROR")
    return { status: "BUILD_ERROR", reason: parsed.reason ?? "the tests did not load" };
  if (parsed.failed > 0 || parsed.status === "TEST_FAILURE") return { status: "TEST_FAILURE" };
  if (outcome.exitCode === 127)
    return { status: "BUILD_ERROR", reason: "the test command was not found (exit code 127)" };
  if (parsed.status === "UNPARSED")
    return { status: "UNPARSED", reason: parsed.reason ?? "no parser could read the output" };
  if (parsed.status === "NO_TESTS" || parsed.executed <= 0) {
    return { status: "NO_TESTS", reason: parsed.reason ?? "no test was executed" };
  }
  if (outcome.exitCode !== 0) {
    return {
      status: "TEST_FAILURE",
      reason: `the test command exited with code ${outcome.exitCode} although no failure was parsed`,
    };
  }
  return { status: "PASS" };
}
