import { buildPrompt, type PromptInput } from "../agents/prompt.js";
import { runAgentSession } from "../agents/session.js";
import type { AgentRole } from "../pipeline/events.js";
import type { StageResult } from "../pipeline/stage.js";
import type { StoryContext } from "../pipeline/story-context.js";

/**
 * One agent session for a stage: the prompt for the role (with the story's dependencies and the size
 * bound), then the session. Returns the stage's result when the session did not finish (pause on an
 * interruption or the cost cap, escalate on an agent error), undefined when it did.
 */
export async function agentStep(
  ctx: StoryContext,
  role: AgentRole,
  extra: Pick<PromptInput, "failures" | "rawOutputTail" | "findings"> = {},
): Promise<StageResult | undefined> {
  const { run, story } = ctx;
  const prompt = buildPrompt({
    role,
    story,
    feature: run.feature,
    dependencies: story.dependencies.map((id) => ({
      id,
      title: run.stories.get(id)?.title ?? "(not in this PRD)",
      status: run.stories.status(id) ?? "unknown",
    })),
    maxChars: run.config.agent.maxPromptChars,
    ...extra,
  });
  const outcome = await runAgentSession(ctx, role, prompt);
  if (outcome.kind === "paused") return { action: "pause", reason: outcome.reason };
  if (outcome.kind === "error") return { action: "escalate", reason: outcome.reason };
  return undefined;
}
