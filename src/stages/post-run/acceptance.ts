import { RUN_SCOPE } from "../../ledger/entry.js";
import { runVerification } from "../../verification/orchestrator.js";
import type { RunContext } from "../context.js";
import type { PostRunResult } from "./deferred-regression.js";

/** The acceptance command, once after every story, when `quality.commands.acceptance` is configured. */
export async function acceptance(run: RunContext, anyPassed: boolean): Promise<PostRunResult> {
  const command = run.config.quality.commands.acceptance;
  if (!command || !anyPassed) return { name: "acceptance", ran: false, success: true, implicated: [] };
  const result = await runVerification(run, {
    storyId: RUN_SCOPE,
    strategy: "acceptance",
    command,
    attempt: 1,
  });
  return {
    name: "acceptance",
    ran: true,
    success: result.success,
    ...(result.success ? {} : { reason: `acceptance ${result.status} (${result.failCount} failed)` }),
    implicated: [],
  };
}
