import type { Config } from "../config/schema.js";
import { execCommand } from "../process/executor.js";
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
        command: run,
        cwd: request.cwd,
        input: request.prompt,
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        tailBytes: 256 * 1024,
        env: { ...process.env, ...agentEnvironment(request) },
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
