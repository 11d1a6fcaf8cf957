import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentRole } from "../pipeline/events.js";
import type { StoryContext } from "../pipeline/story-context.js";
import type { AgentResult } from "./adapter.js";

export type SessionOutcome =
  | { kind: "done"; result: AgentResult }
  | { kind: "error"; reason: string; result: AgentResult }
  | { kind: "paused"; reason: string };

/**
 * One agent session for a story, the only way stages reach an agent: checks the cost cap before
 * starting, writes the prompt file, announces `agent:start` / `agent:end` and `run:cost-check`.
 */
export async function runAgentSession(
  ctx: StoryContext,
  role: AgentRole,
  prompt: string,
): Promise<SessionOutcome> {
  const { run } = ctx;
  const limit = run.config.execution.costLimitUsd;
  if (run.signal.aborted) return { kind: "paused", reason: "interrupted" };
  if (run.requests.pauseReason) return { kind: "paused", reason: run.requests.pauseReason };
  if (limit > 0 && run.cost.usd >= limit) {
    return {
      kind: "paused",
      reason: `cost limit reached: $${run.cost.usd.toFixed(2)} of $${limit.toFixed(2)}`,
    };
  }
  ctx.agentCalls += 1;
  const attempt = ctx.agentCalls;
  const promptDir = join(run.runDir, "prompts");
  mkdirSync(promptDir, { recursive: true });
  const promptFile = join(promptDir, `${ctx.story.id}-${attempt}-${role}.md`);
  writeFileSync(promptFile, prompt);
  const model = run.agent.modelFor(ctx.tier);
  const call = { storyId: ctx.story.id, role, agent: run.agent.name, model, tier: ctx.tier };
  run.bus.emit("agent:start", call);
  const result = await run.agent.run({
    role,
    storyId: ctx.story.id,
    attempt,
    tier: ctx.tier,
    model,
    prompt,
    promptFile,
    cwd: run.root,
    timeoutMs: run.config.agent.timeoutSeconds * 1000,
    signal: run.signal,
    feature: run.feature,
    runId: run.runId,
  });
  run.cost.usd += result.costUsd;
  run.cost.sessions += 1;
  if (result.costBasis !== "exact") run.cost.inexactSessions += 1;
  ctx.costUsd += result.costUsd;
  run.bus.emit("agent:end", {
    ...call,
    exitCode: result.exitCode,
    durationMs: result.durationMs,
    costUsd: result.costUsd,
    costBasis: result.costBasis,
  });
  run.bus.emit("run:cost-check", { costUsd: run.cost.usd, limitUsd: limit });
  if (result.aborted) return { kind: "paused", reason: "interrupted" };
  if (result.error) return { kind: "error", reason: result.error, result };
  return { kind: "done", result };
}
