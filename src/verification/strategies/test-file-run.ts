import type { VerifyStatus } from "../../model/verify.js";
import { execCommand } from "../../process/executor.js";
import { type JudgingSandbox, judgingWrapper } from "../../process/judging-sandbox.js";
import { NO_BYTECODE } from "../env.js";
import { parseTestOutput } from "../parsers/registry.js";
import type { ParsedTests } from "../parsers/types.js";
import { scopedCommand } from "../smart-runner.js";
import { judgeStatus } from "../status.js";

export interface TestFileRun {
  /** Ctrl-C stopped it: nothing it said counts. */
  aborted: boolean;
  status: VerifyStatus;
  reason?: string;
  parsed: ParsedTests;
}

/**
 * One test file run on its own through the scoped command template (`{{files}}`), in `cwd`, parsed and
 * judged by the one PASS rule. Shared by the gates that run a file outside the story's verify (test-strength
 * without the production change, test-integrity at the base commit and now).
 */
export async function runTestFile(options: {
  template: string;
  file: string;
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The run's judging sandbox: the file runs there, over a throw-away layer of `cwd`. */
  judging?: JudgingSandbox;
}): Promise<TestFileRun> {
  const command = scopedCommand(options.template, [options.file]);
  const wrapper = options.judging && judgingWrapper(options.judging, options.cwd);
  const outcome = await execCommand({
    command,
    cwd: options.cwd,
    readsOnly: true,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
    env: { ...options.env, ...NO_BYTECODE },
    ...(wrapper ? { wrapper } : {}),
  });
  const parsed = parseTestOutput(outcome.output, { command });
  const { status, reason } = judgeStatus(parsed, outcome);
  return { aborted: outcome.aborted, status, parsed, ...(reason ? { reason } : {}) };
}
