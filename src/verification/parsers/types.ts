import type { TestFailure } from "../../model/verify.js";

/** What a parser can say about a test log on its own, before the exit code is considered. */
export type ParsedStatus = "PASS" | "TEST_FAILURE" | "NO_TESTS" | "UNPARSED" | "BUILD_ERROR";

export interface ParsedTests {
  /** vitest, jest, node-test, mocha, pytest, go, cargo, junit, tap, ... or "unknown". */
  runner: string;
  status: ParsedStatus;
  /** Tests that ran: passed + failed. Skipped and todo tests are not executed. */
  executed: number;
  passed: number;
  failed: number;
  skipped: number;
  failures: TestFailure[];
  /** Why, when the status is UNPARSED, NO_TESTS or BUILD_ERROR. */
  reason?: string;
}

export interface TestOutputParser {
  /** The runner name it reports, also accepted by `--runner`. */
  readonly name: string;
  /** What `detect` looks for, in words: said when the parser declines an output (`gantry parse-tests`). */
  readonly looksFor: string;
  /** Whether this normalised output looks like this runner's (cheap; the registry asks each in order). */
  detect(text: string): boolean;
  /** Parses normalised output. Never guesses: no counts printed means UNPARSED with a reason. */
  parse(text: string): ParsedTests;
}
