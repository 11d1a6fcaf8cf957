import { recordVerdict } from "../ledger/record.js";
import type { Judged } from "../model/ledger.js";
import { UNREADABLE_MEANING, type VerifyResult, type VerifyStrategy } from "../model/verify.js";
import type { ExecResult } from "../process/executor.js";
import { installWhenManifestsChanged } from "./install.js";
import { parseTestOutput } from "./parsers/registry.js";
import { runQualityCommand } from "./quality-command.js";
import { judgeStatus } from "./status.js";
import { unreadableHead, unreadableReason } from "./unreadable.js";
import type { Workspace } from "./workspace.js";

export interface VerifyRequest {
  storyId: string;
  strategy: VerifyStrategy;
  /** The command to run; undefined when the project has none configured (never a pass). */
  command: string | undefined;
  attempt: number;
  /** Said in the result as its scope, e.g. why the full suite ran instead of a scoped set. */
  note?: string;
}

const TAIL_CHARS = 16_000;

/**
 * The single place every test run goes through: judges the tree, runs the command, parses, applies the
 * PASS rule, and announces `verify:start` / `verify:result` (the ledger records the latter).
 */
export async function runVerification(
  run: Workspace,
  request: VerifyRequest,
): Promise<VerifyResult & { judged: Judged }> {
  const { bus } = run;
  bus.emit("verify:start", { storyId: request.storyId, strategy: request.strategy });
  let judged: Judged = await run.git.judge();
  const installed = request.command ? await installWhenManifestsChanged(run, judged.tree) : undefined;
  // What the install wrote (ignored dependency folders) is no part of the tree; judged again all the same.
  if (installed) judged = await run.git.judge();
  const result =
    installed && installed.exitCode !== 0
      ? installFailed(request, installed)
      : request.command
        ? await runTests(run, request, request.command)
        : noCommand(
            request,
            "no test command is configured (quality.commands.test); nothing judged this story",
          );
  if (request.note) result.scope = request.note;
  recordVerdict(run, "verify:result", { ...result, judged, attempt: request.attempt });
  return { ...result, judged };

  async function runTests(run: Workspace, request: VerifyRequest, command: string): Promise<VerifyResult> {
    const outcome = await runQualityCommand(run, command);
    const parsed = parseTestOutput(outcome.output, { command });
    const judgement = judgeStatus(parsed, outcome);
    const { status } = judgement;
    // No verdict in the output: say which status and what it means, with the lines that could not be read.
    const head = UNREADABLE_MEANING[status] ? unreadableHead(status, outcome.output) : undefined;
    const reason = head ? unreadableReason(status, judgement.reason, head) : judgement.reason;
    return {
      storyId: request.storyId,
      strategy: request.strategy,
      status,
      success: status === "PASS",
      runner: parsed.runner,
      passCount: parsed.passed,
      failCount: parsed.failed,
      skipCount: parsed.skipped,
      totalCount: parsed.executed + parsed.skipped,
      failures: parsed.failures.slice(0, 100),
      command,
      exitCode: outcome.exitCode,
      durationMs: outcome.durationMs,
      rawOutputTail: outcome.output.slice(-TAIL_CHARS),
      ...(reason ? { reason } : {}),
      ...(head ? { outputHead: head } : {}),
    };
  }
}

function installFailed(request: VerifyRequest, outcome: ExecResult): VerifyResult {
  return {
    ...noCommand(request, ""),
    status: "BUILD_ERROR",
    runner: "install",
    command: outcome.command,
    exitCode: outcome.exitCode,
    durationMs: outcome.durationMs,
    rawOutputTail: outcome.output.slice(-TAIL_CHARS),
    reason: `the story changed the dependencies and quality.commands.install failed (exit ${outcome.exitCode ?? outcome.signal})`,
  };
}

function noCommand(request: VerifyRequest, reason: string): VerifyResult {
  return {
    storyId: request.storyId,
    strategy: request.strategy,
    status: "NO_TESTS",
    success: false,
    runner: "none",
    passCount: 0,
    failCount: 0,
    skipCount: 0,
    totalCount: 0,
    failures: [],
    command: "",
    exitCode: null,
    durationMs: 0,
    rawOutputTail: "",
    reason: unreadableReason("NO_TESTS", reason, []),
  };
}
