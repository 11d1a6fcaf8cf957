import type { Verdict } from "../model/ledger.js";
import type { VerifyResult, VerifyStatus } from "../model/verify.js";

export const LEDGER_FILE = "ledger.jsonl";

/** The storyId of run-level verdicts (deferred regression, acceptance): never a valid story id. */
export const RUN_SCOPE = "*";

/** The gate a verify strategy's verdict is recorded under. */
export const GATE_OF_STRATEGY: Record<VerifyResult["strategy"], string> = {
  scoped: "verify",
  regression: "regression",
  "deferred-regression": "regression",
  acceptance: "acceptance",
};

/** Only PASS is a pass; a run that could not be read or ran nothing proves nothing. */
export const VERDICT_OF_STATUS: Record<VerifyStatus, Verdict> = {
  PASS: "pass",
  TEST_FAILURE: "fail",
  BUILD_ERROR: "fail",
  TIMEOUT: "fail",
  NO_TESTS: "unverified",
  UNPARSED: "unverified",
};

/** Whether a parsed line has the fields every reader relies on. */
export function isLedgerEntry(value: unknown): value is import("../model/ledger.js").LedgerEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return ["runId", "storyId", "gate", "verdict", "tree", "at"].every((key) => typeof entry[key] === "string");
}
