import { type ExecResult, execCommand } from "../process/executor.js";
import { judgingWrapper } from "../process/judging-sandbox.js";
import { NO_BYTECODE, testEnvironment } from "./env.js";
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
  // A fixer writes through, under the agent's sandbox, and is judged after; every other command judges
  // and sees the tree through a layer that is thrown away with it.
  const wrapper = how.changesCode ? run.sandbox : run.judging && judgingWrapper(run.judging, run.root);
  return execCommand({
    ...(wrapper ? { wrapper } : {}),
    command,
    cwd: run.root,
    readsOnly: how.changesCode !== true,
    timeoutMs: run.config.quality.timeoutSeconds * 1000,
    signal: run.signal,
    env: {
      ...testEnvironment(process.env, run.config.quality.stripEnv),
      ...(how.changesCode ? {} : NO_BYTECODE),
    },
    ...(tailBytes ? { tailBytes } : {}),
  });
}
