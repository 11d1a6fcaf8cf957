import type { ReviewCheck } from "../model/review.js";
import { errorText, settleWithin } from "../plugins/bounded.js";
import type { PluginReviewer, ReviewOutcome } from "../plugins/types.js";
import { describeValue } from "../plugins/validate.js";

const MAX_FINDINGS = 50;
const MAX_FINDING_CHARS = 2_000;
const MAX_OUTPUT_CHARS = 16_000;

export interface PluginReviewInput {
  root: string;
  storyId: string;
  changedFiles?: string[];
  timeoutMs: number;
  signal: AbortSignal;
}

/** The check name a plugin reviewer's result is reported under. */
export const checkName = (reviewer: { name: string }) => `plugin:${reviewer.name}`;

/**
 * Runs the plugin reviewers one after another. Each result becomes a check named `plugin:<name>`; a
 * reviewer that throws, answers with the wrong shape or does not settle within the timeout becomes a
 * failed check whose output names the plugin and what went wrong.
 */
export async function runPluginReviewers(
  reviewers: readonly PluginReviewer[],
  input: PluginReviewInput,
): Promise<ReviewCheck[]> {
  const checks: ReviewCheck[] = [];
  for (const reviewer of reviewers) {
    const who = `plugin "${reviewer.plugin}" reviewer "${reviewer.name}"`;
    const settled = await settleWithin(
      (signal) =>
        reviewer.review({
          root: input.root,
          storyId: input.storyId,
          ...(input.changedFiles ? { changedFiles: [...input.changedFiles] } : {}),
          signal,
        }),
      { timeoutMs: input.timeoutMs, signal: input.signal },
    );
    const failed = (output: string): ReviewCheck => ({
      name: checkName(reviewer),
      success: false,
      exitCode: null,
      output,
      findings: [],
    });
    switch (settled.kind) {
      case "value": {
        const problem = shapeProblem(settled.value);
        if (problem) {
          checks.push(
            failed(`${who} returned ${problem}; expected { success: boolean, findings: string[] }`),
          );
          break;
        }
        const outcome = settled.value as ReviewOutcome;
        const findings = outcome.findings.slice(0, MAX_FINDINGS).map((f) => f.slice(0, MAX_FINDING_CHARS));
        const output = typeof outcome.output === "string" ? outcome.output : findings.join("\n");
        checks.push({
          name: checkName(reviewer),
          success: outcome.success,
          exitCode: null,
          output: output.slice(-MAX_OUTPUT_CHARS),
          findings,
        });
        break;
      }
      case "threw":
        checks.push(failed(`${who} threw: ${errorText(settled.error)}`));
        break;
      case "timeout":
        checks.push(
          failed(`${who} did not settle within ${input.timeoutMs / 1000} s (quality.timeoutSeconds)`),
        );
        break;
      case "aborted":
        checks.push(failed(`${who} was interrupted`));
        break;
    }
  }
  return checks;
}

function shapeProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return describeValue(value);
  const r = value as Record<string, unknown>;
  if (typeof r.success !== "boolean") return `success: ${describeValue(r.success)}`;
  if (!Array.isArray(r.findings)) return `findings: ${describeValue(r.findings)}`;
  const bad = r.findings.findIndex((f) => typeof f !== "string");
  if (bad >= 0) return `findings[${bad}]: ${describeValue(r.findings[bad])}`;
  if (r.output !== undefined && typeof r.output !== "string") return `output: ${describeValue(r.output)}`;
  return undefined;
}
