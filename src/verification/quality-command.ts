import { type ExecResult, execCommand } from "../process/executor.js";
import { testEnvironment } from "./env.js";
import type { Workspace } from "./workspace.js";

/**
 * Runs one of the project's quality commands (tests, lint, typecheck, fixers) the way all of them run:
 * in the project root, within `quality.timeoutSeconds`, stopped by Ctrl-C, without secrets in the environment.
 */
export function runQualityCommand(
  run: Workspace,
  command: string,
  tailBytes?: number,
  how: { changesCode?: boolean } = {},
): Promise<ExecResult> {
  return execCommand({
    // A fixer runs project tools the agent may have edited: it gets the agent's sandbox.
    ...(how.changesCode && run.sandbox ? { wrapper: run.sandbox } : {}),
    command,
    viaHelper: true,
    cwd: run.root,
    readsOnly: how.changesCode !== true,
    timeoutMs: run.config.quality.timeoutSeconds * 1000,
    signal: run.signal,
    env: testEnvironment(process.env, run.config.quality.stripEnv),
    ...(tailBytes ? { tailBytes } : {}),
  });
}
