import PQueue from "p-queue";
import { recordVerdict } from "../ledger/record.js";
import type { ReviewCheck, ReviewResult } from "../model/review.js";
import type { PluginReviewer } from "../plugins/types.js";
import { runQualityCommand } from "../verification/quality-command.js";
import type { Workspace } from "../verification/workspace.js";
import { checkName, runPluginReviewers } from "./plugin-reviewers.js";

const BUILT_IN_CHECKS = ["typecheck", "lint"] as const;
const MAX_FINDINGS = 50;

export interface ReviewPlugins {
  /** Run after the built-in checks; each is reported as the check `plugin:<name>`. */
  reviewers?: readonly PluginReviewer[];
  /** Handed to the plugin reviewers: what the story changed since it started. */
  changedFiles?: string[];
}

/**
 * Runs typecheck and lint (those configured) concurrently, then the plugin reviewers, and announces
 * `review:start` / `review:result`.
 */
export async function runReview(
  run: Workspace,
  storyId: string,
  attempt: number,
  plugins: ReviewPlugins = {},
): Promise<ReviewResult> {
  const commands = run.config.quality.commands;
  const checks = BUILT_IN_CHECKS.filter((name) => commands[name]);
  const reviewers = plugins.reviewers ?? [];
  run.bus.emit("review:start", { storyId, checks: [...checks, ...reviewers.map(checkName)] });
  // After the tests, no stat pass: a file they changed is still changed at completion, whose recheck then
  // judges a tree without this verdict (docs/security.md, "One stat pass a story").
  const judged = await run.git.judge({ deferStatCheck: true });
  // The checks are independent and only read the tree: they run at the same time (one after the other,
  // typecheck and lint of a real project took 21 s), their results kept in the configured order.
  const queue = new PQueue({ concurrency: Math.max(1, checks.length) });
  const results: ReviewCheck[] = await Promise.all(
    checks.map((name) =>
      queue.add(async (): Promise<ReviewCheck> => {
        const command = commands[name] as string;
        const outcome = await runQualityCommand(run, command, 256 * 1024);
        const success = outcome.exitCode === 0 && !outcome.timedOut;
        const output = outcome.timedOut ? `${outcome.output}\n[timed out]` : outcome.output;
        return {
          name,
          success,
          exitCode: outcome.exitCode,
          output: output.slice(-16_000),
          findings: success ? [] : findingsOf(output),
        };
      }),
    ),
  );
  if (reviewers.length > 0 && !run.signal.aborted) {
    const ran = await runPluginReviewers(reviewers, {
      root: run.root,
      storyId,
      changedFiles: plugins.changedFiles,
      timeoutMs: run.config.quality.timeoutSeconds * 1000,
      signal: run.signal,
    });
    results.push(...ran);
  }
  const result: ReviewResult = { storyId, success: results.every((c) => c.success), checks: results };
  recordVerdict(run, "review:result", { ...result, judged, attempt });
  return result;
}

/** Lines that read like diagnostics (a path with a line number, or an error/warning word). */
export function findingsOf(output: string): string[] {
  const lines = output.split("\n").map((l) => l.trimEnd());
  const diagnostic = /(\S+\.\w+:\d+|\berror\b|\bwarning\b|✖|×)/i;
  return lines.filter((l) => l.trim() && diagnostic.test(l)).slice(0, MAX_FINDINGS);
}
