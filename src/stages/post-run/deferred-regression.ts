import type { RunContext } from "../../pipeline/run-context.js";
import { runVerification } from "../../verification/orchestrator.js";

export const RUN_SCOPE = "*";

export interface PostRunResult {
  name: string;
  ran: boolean;
  success: boolean;
  reason?: string;
  /** Stories whose committed work the failures point at. */
  implicated: string[];
}

/**
 * Once after every story, when `regression.mode` is deferred: the full suite on the final tree. A
 * failure in a test file some passed story changed is put on that story; the run fails either way.
 */
export async function deferredRegression(
  run: RunContext,
  passed: { id: string; files: string[] }[],
): Promise<PostRunResult> {
  const name = "deferred-regression";
  if (run.config.execution.regression.mode !== "deferred" || passed.length === 0) {
    return { name, ran: false, success: true, implicated: [] };
  }
  const result = await runVerification(run, {
    storyId: RUN_SCOPE,
    strategy: "deferred-regression",
    command: run.config.quality.commands.test,
    attempt: 1,
  });
  if (result.success) return { name, ran: true, success: true, implicated: [] };
  const failingFiles = new Set(result.failures.map((f) => f.file).filter((f): f is string => Boolean(f)));
  const implicated = passed.filter((s) => s.files.some((file) => failingFiles.has(file))).map((s) => s.id);
  const where = implicated.length > 0 ? `; failing tests touch ${implicated.join(", ")}` : "";
  return {
    name,
    ran: true,
    success: false,
    reason: `full suite ${result.status} (${result.failCount} failed)${where}`,
    implicated,
  };
}
