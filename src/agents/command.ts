import type { Config } from "../config/schema.js";
import { type ExecOptions, execCommand } from "../process/executor.js";
import { SESSION_ID_VARIABLE } from "../process/leftovers.js";
import type { AgentAdapter, AgentRequest, AgentResult } from "./adapter.js";

/**
 * The `command` adapter: runs `agent.command.run` through /bin/sh -c in the repository root with the
 * prompt on standard input and the GANTRY_* variables. Exit code 0 is a finished session.
 */
export function createCommandAdapter(config: Config): AgentAdapter {
  const run = config.agent.command?.run;
  const models = config.agent.models.command ?? {};
  return {
    name: "command",
    modelFor: (tier) => models[tier] ?? tier,
    async run(request: AgentRequest): Promise<AgentResult> {
      if (!run) {
        return failed(
          "agent.command.run is not set in .gantry/config.json; the command agent has nothing to run",
        );
      }
      const result = await execCommand({
        ...sessionExecOptions(request),
        command: run,
        input: request.prompt,
        tailBytes: 256 * 1024,
      });
      const error = result.timedOut
        ? `the agent did not finish within ${Math.round(request.timeoutMs / 1000)} s and was killed`
        : result.aborted
          ? "the agent was interrupted"
          : result.spawnError
            ? `the agent could not start: ${result.spawnError}`
            : result.exitCode !== 0
              ? `the agent exited with code ${result.exitCode ?? result.signal}`
              : undefined;
      return {
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        aborted: result.aborted,
        durationMs: result.durationMs,
        costUsd: 0,
        costBasis: "unknown",
        output: result.output,
        ...(error ? { error } : {}),
      };
    },
  };
}

/**
 * How every agent session's process is started, whichever adapter starts it: in the tree, within the
 * session's time, stopped by Ctrl-C, with the GANTRY_* variables, under the run's sandbox when it has one.
 */
export function sessionExecOptions(
  request: AgentRequest,
): Pick<ExecOptions, "cwd" | "timeoutMs" | "signal" | "env" | "wrapper"> {
  return {
    cwd: request.cwd,
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    env: { ...process.env, ...agentEnvironment(request) },
    ...(request.sandbox ? { wrapper: request.sandbox } : {}),
  };
}

export function agentEnvironment(request: AgentRequest): Record<string, string> {
  return {
    GANTRY_STORY_ID: request.storyId,
    GANTRY_ROLE: request.role,
    GANTRY_ATTEMPT: String(request.attempt),
    GANTRY_TIER: request.tier,
    GANTRY_MODEL: request.model,
    GANTRY_PROMPT_FILE: request.promptFile,
    GANTRY_FEATURE: request.feature,
    GANTRY_RUN_ID: request.runId,
    [SESSION_ID_VARIABLE]: request.sessionId,
    ...(request.outputFile ? { GANTRY_OUTPUT_FILE: request.outputFile } : {}),
  };
}

function failed(error: string): AgentResult {
  return {
    exitCode: null,
    timedOut: false,
    aborted: false,
    durationMs: 0,
    costUsd: 0,
    costBasis: "unknown",
    output: "",
    error,
  };
}
