import { buildPrompt } from "../agents/prompt.js";
import { runAgentSession } from "../agents/session.js";
import { CONTINUE, type Stage } from "../pipeline/stage.js";

/** One agent session with the story prompt; an agent error or timeout escalates. */
export const executionStage: Stage = {
  name: "execution",
  enabled: () => true,
  async execute(ctx) {
    const prompt = buildPrompt({ role: "implement", story: ctx.story, feature: ctx.run.feature });
    const outcome = await runAgentSession(ctx, "implement", prompt);
    if (outcome.kind === "paused") return { action: "pause", reason: outcome.reason };
    if (outcome.kind === "error") return { action: "escalate", reason: outcome.reason };
    return CONTINUE;
  },
};
