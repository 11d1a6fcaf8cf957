import { CONTINUE } from "../model/stage.js";
import { GANTRY } from "./route.js";
import type { Stage } from "./stage.js";

/**
 * Records the pass's routing decision (complexity, test strategy, the tier this pass runs at) on the
 * story. The story executor decided it as the pass began (`ctx.route`); a router plugin that misbehaved
 * fails the pass here, naming it.
 */
export const routingStage: Stage = {
  name: "routing",
  enabled: () => true,
  async execute(ctx) {
    const { run, story } = ctx;
    if (!ctx.route) return { action: "fail", reason: "no routing decision for this pass" };
    const { decision, routerError } = ctx.route;
    if (routerError !== undefined) return { action: "fail", reason: routerError };
    // Written with the story's next status change (the decision is made again if a crash loses it).
    run.stories.defer(story.id, {
      routing: {
        ...story.routing,
        complexity: decision.complexity,
        testStrategy: decision.testStrategy,
        tier: ctx.tier,
        reason: decision.reason,
        decidedBy: story.routing?.complexity && story.routing.decidedBy !== GANTRY ? "prd" : GANTRY,
      },
    });
    return CONTINUE;
  },
};
