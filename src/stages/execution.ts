import { CONTINUE, type Stage } from "../pipeline/stage.js";
import { agentStep } from "./agent-step.js";

/** One agent session with the story prompt; an agent error or timeout escalates. */
export const executionStage: Stage = {
  name: "execution",
  enabled: () => true,
  async execute(ctx) {
    return (await agentStep(ctx, "implement")) ?? CONTINUE;
  },
};
