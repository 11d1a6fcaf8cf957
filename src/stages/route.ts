import type { Config } from "../config/schema.js";
import { errorText, settleWithin } from "../plugins/bounded.js";
import { PluginError } from "../plugins/errors.js";
import type { PluginRouter, RouteAnswer } from "../plugins/types.js";
import { describeValue } from "../plugins/validate.js";
import { COMPLEXITIES, type Complexity, type Story } from "../prd/story.js";

/** Marks a `story.routing` written by gantry's own heuristics, so a later run decides afresh. */
export const GANTRY = "gantry";

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
  // gantry writes its own decision back to the story; only a complexity the PRD's author set is "given".
  const given = story.routing?.decidedBy === GANTRY ? undefined : story.routing?.complexity;
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
    testStrategy: "test-after",
    tier: tierOf(complexity),
    reason,
  };
}

/** How long a router plugin may take to answer. */
export const ROUTER_TIMEOUT_MS = 30_000;
const ANSWER_KEYS = new Set(["complexity", "tier", "testStrategy", "reason"]);

/**
 * Asks the router plugins in order; the first with an opinion (anything but `undefined`, `null` or `{}`)
 * decides, and what it leaves out comes from {@link routeStory}. Without an opinion from any router, it
 * is `routeStory`'s decision. A router that throws, does not answer in time or answers with something
 * invalid (a tier not in `routing.tiers`, say) is a PluginError naming it.
 */
export async function routeWithPlugins(
  story: Story,
  config: Config,
  routers: readonly PluginRouter[],
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<RoutingDecision> {
  const fallback = routeStory(story, config);
  const timeoutMs = options.timeoutMs ?? ROUTER_TIMEOUT_MS;
  for (const router of routers) {
    const who = `router "${router.name}" (plugin "${router.plugin}")`;
    const settled = await settleWithin(() => router.route(structuredClone(story)), {
      timeoutMs,
      signal: options.signal,
    });
    if (settled.kind === "aborted") return fallback;
    if (settled.kind === "threw") {
      throw new PluginError(router.plugin, "route", `${who} threw: ${errorText(settled.error)}`, {
        cause: settled.error,
      });
    }
    if (settled.kind === "timeout") {
      throw new PluginError(router.plugin, "route", `${who} did not answer within ${timeoutMs / 1000} s`);
    }
    const answer = checkAnswer(settled.value, config, who, router.plugin);
    if (!answer) continue;
    const complexity = answer.complexity ?? fallback.complexity;
    return {
      complexity,
      testStrategy: answer.testStrategy ?? fallback.testStrategy,
      tier: answer.tier ?? (answer.complexity ? config.routing.complexityTier[complexity] : fallback.tier),
      reason: `router ${router.name}: ${answer.reason ?? Object.keys(answer).join(", ")}`,
    };
  }
  return fallback;
}

function checkAnswer(value: unknown, config: Config, who: string, plugin: string): RouteAnswer | undefined {
  const reject = (what: string, expected: string, got: unknown): never => {
    throw new PluginError(
      plugin,
      "route",
      `${who} answered ${what}: expected ${expected}, got ${describeValue(got)}`,
    );
  };
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    return reject(
      "with a value",
      "an object { complexity?, tier?, testStrategy?, reason? } or undefined",
      value,
    );
  }
  const answer = value as Record<string, unknown>;
  const extra = Object.keys(answer).filter((k) => !ANSWER_KEYS.has(k));
  if (extra.length > 0)
    reject("with unknown keys", "only complexity, tier, testStrategy, reason", extra.join(", "));
  const tiers = config.routing.tiers;
  const { complexity, tier, testStrategy, reason } = answer;
  if (complexity !== undefined && !COMPLEXITIES.includes(complexity as Complexity)) {
    reject("complexity", `one of ${COMPLEXITIES.join(", ")}`, complexity);
  }
  if (tier !== undefined && (typeof tier !== "string" || !tiers.includes(tier))) {
    reject("tier", `one of routing.tiers (${tiers.join(", ")})`, tier);
  }
  if (testStrategy !== undefined && (typeof testStrategy !== "string" || testStrategy.trim() === "")) {
    reject("testStrategy", "a non-empty string", testStrategy);
  }
  if (reason !== undefined && typeof reason !== "string") reject("reason", "a string", reason);
  const given = Object.fromEntries(Object.entries(answer).filter(([, v]) => v !== undefined));
  return Object.keys(given).length > 0 ? (given as RouteAnswer) : undefined;
}

/** A pass's routing: the decision, and the router that misbehaved (the routing stage fails the pass on it). */
export interface PassRoute {
  decision: RoutingDecision;
  routerError?: string;
}

/**
 * The one place a story's routing is decided, once a pass: the router plugins through
 * {@link routeWithPlugins}; a router that misbehaves leaves {@link routeStory}'s decision and its error.
 */
export async function decideRoute(
  story: Story,
  config: Config,
  routers: readonly PluginRouter[],
  signal?: AbortSignal,
): Promise<PassRoute> {
  try {
    return { decision: await routeWithPlugins(story, config, routers, { signal }) };
  } catch (error) {
    return {
      decision: routeStory(story, config),
      routerError: error instanceof Error ? error.message : errorText(error),
    };
  }
}
