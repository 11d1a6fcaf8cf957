import type { Config } from "../config/schema.js";
import { CONTINUE, type Stage } from "../pipeline/stage.js";
import type { Complexity, Story } from "../prd/story.js";

export interface RoutingDecision {
  complexity: Complexity;
  testStrategy: string;
  tier: string;
  reason: string;
}

const KEYWORDS: [Complexity, RegExp][] = [
  [
    "expert",
    /\b(architecture|distributed|concurren\w*|cryptograph\w*|security|migration|race condition|performance)\b/i,
  ],
  [
    "complex",
    /\b(refactor\w*|integrat\w*|database|schema|auth\w*|async|cache|caching|protocol|parser|state machine)\b/i,
  ],
  ["simple", /\b(typo|rename|wording|copy text|readme|docs?|label|colou?r|style|log message)\b/i],
];

/** Complexity and tier from the story's own `routing`, else from keywords and size. */
export function routeStory(story: Story, config: Config): RoutingDecision {
  const tierOf = (c: Complexity) => config.routing.complexityTier[c];
  const given = story.routing?.complexity;
  if (given) {
    return {
      complexity: given,
      testStrategy: story.routing?.testStrategy ?? "test-after",
      tier: tierOf(given),
      reason: "set in the PRD",
    };
  }
  const text = `${story.title}\n${story.description}\n${story.acceptanceCriteria.join("\n")}`;
  let complexity: Complexity = "medium";
  let reason = "no strong signal";
  for (const [level, pattern] of KEYWORDS) {
    const hit = pattern.exec(text);
    if (hit) {
      complexity = level;
      reason = `keyword "${hit[0]}"`;
      break;
    }
  }
  if (complexity !== "expert" && (story.acceptanceCriteria.length > 8 || story.description.length > 2000)) {
    complexity = "complex";
    reason = `${story.acceptanceCriteria.length} acceptance criteria, ${story.description.length} characters of description`;
  }
  return {
    complexity,
    testStrategy: complexity === "simple" ? "test-after" : "test-after",
    tier: tierOf(complexity),
    reason,
  };
}

/** Records the routing decision (complexity, test strategy, the tier this pass runs at) on the story. */
export const routingStage: Stage = {
  name: "routing",
  enabled: () => true,
  async execute(ctx) {
    const decision = routeStory(ctx.story, ctx.run.config);
    ctx.run.stories.update(ctx.story.id, {
      routing: {
        ...ctx.story.routing,
        complexity: decision.complexity,
        testStrategy: decision.testStrategy,
        tier: ctx.tier,
        reason: decision.reason,
      },
    });
    return CONTINUE;
  },
};
