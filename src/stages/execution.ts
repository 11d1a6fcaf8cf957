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
    if (await changedNothing(ctx)) return { action: "escalate", reason: "the agent session changed nothing" };
    return CONTINUE;
  },
};
