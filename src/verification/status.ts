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
 * A summary the exit code contradicts (failures or a load error with exit 0, only passes with a
 * non-zero exit) is UNPARSED: the output then holds text that did not come from the runner's verdict.
 */
export function judgeStatus(
  parsed: ParsedTests,
  outcome: RunOutcome,
): { status: VerifyStatus; reason?: string } {
  if (outcome.timedOut)
    return { status: "TIMEOUT", reason: "the test command did not finish within its timeout" };
  if (outcome.spawnError)
    return { status: "BUILD_ERROR", reason: `the test command could not start: ${outcome.spawnError}` };
  const exitedZero = outcome.exitCode === 0;
  if (parsed.status === "BUILD_ERROR") {
    if (exitedZero) return disagrees(`says the tests did not load (${parsed.reason})`, outcome);
    return { status: "BUILD_ERROR", reason: parsed.reason ?? "the tests did not load" };
  }
  if (parsed.failed > 0 || parsed.status === "TEST_FAILURE") {
    if (exitedZero) return disagrees(`reports ${parsed.failed} failed test(s)`, outcome);
    return { status: "TEST_FAILURE" };
  }
  if (outcome.exitCode === 127)
    return { status: "BUILD_ERROR", reason: "the test command was not found (exit code 127)" };
  if (parsed.status === "UNPARSED")
    return { status: "UNPARSED", reason: parsed.reason ?? "no parser could read the output" };
  if (parsed.status === "NO_TESTS" || parsed.executed <= 0) {
    return { status: "NO_TESTS", reason: parsed.reason ?? "no test was executed" };
  }
  if (!exitedZero) return disagrees(`reports ${parsed.passed} passed and no failure`, outcome);
  return { status: "PASS" };
}

function disagrees(summary: string, outcome: RunOutcome): { status: VerifyStatus; reason: string } {
  const exit =
    outcome.exitCode === null ? "ended without an exit code" : `exited with code ${outcome.exitCode}`;
  return {
    status: "UNPARSED",
    reason: `the summary disagrees with the exit code: the output ${summary}, but the test command ${exit}`,
  };
}
