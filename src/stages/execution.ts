import { CONTINUE } from "../model/stage.js";
import { agentStep, changedNothing } from "./agent-step.js";
import type { Stage } from "./stage.js";

/** One agent session with the story prompt; an agent error or timeout escalates. */
export const executionStage: Stage = {
  name: "execution",
  enabled: () => true,
  async execute(ctx) {
    const stopped = await agentStep(ctx, "implement");
    if (stopped) return stopped;
    if (ctx.marker?.marker === "CHECKPOINT REACHED" && (ctx.retriesLeft ?? 0) > 0) {
      // One more session at the same tier while the pass has retries left; then the checks judge what is there.
      return { action: "retry", fromStage: "execution", reason: "the agent reported CHECKPOINT REACHED" };
    }
    if (await changedNothing(ctx)) return { action: "escalate", reason: "the agent session changed nothing" };
    return CONTINUE;
  },
};
