import type { Config } from "../config/schema.js";
import type { RunContext, StoryContext } from "../stages/context.js";

/** Passes a tier gets before the story goes one tier up: `routing.tierAttempts[tier]`, else `attemptsPerTier`. */
export function attemptsAt(config: Config, tier: string): number {
  return config.routing.tierAttempts[tier] ?? config.routing.attemptsPerTier;
}

/**
 * The tiers a story climbs, from the one its routing picked to the top of `routing.tiers`, each given its
 * attempts: an `escalate` runs the story again at the same tier while that tier has passes left, then one
 * tier up, and past the top the ladder is exhausted.
 */
export class TierLadder {
  private index: number;
  private passesHere = 0;

  constructor(
    private readonly config: Config,
    private readonly first: number,
  ) {
    this.index = first;
  }

  /** A ladder starting at `tier` (the first of `routing.tiers` when it is not one of them). */
  static from(config: Config, tier: string): TierLadder {
    return new TierLadder(config, Math.max(0, config.routing.tiers.indexOf(tier)));
  }

  get tier(): string {
    return this.config.routing.tiers[this.index] as string;
  }

  /** Counts a pass at the current tier; called as each pass starts. */
  enterPass(): void {
    this.passesHere += 1;
  }

  /** After an `escalate`: the next pass's tier and whether it changed, or undefined past the top tier. */
  afterEscalate(): { tier: string; changed: boolean } | undefined {
    if (this.passesHere < attemptsAt(this.config, this.tier)) return { tier: this.tier, changed: false };
    const next = this.config.routing.tiers[this.index + 1];
    if (next === undefined) return undefined;
    this.index += 1;
    this.passesHere = 0;
    return { tier: next, changed: true };
  }

  /** Back to the first tier (a human-review `retry`), its attempts afresh. */
  restart(): void {
    this.index = this.first;
    this.passesHere = 0;
  }

  /**
   * The most passes a story can take: the ladder twice (a human-review `retry` climbs it once more) and
   * one more pass (a max-retries `retry`).
   */
  maxPasses(): number {
    const climb = this.config.routing.tiers
      .slice(this.first)
      .reduce((sum, tier) => sum + attemptsAt(this.config, tier), 0);
    return 2 * climb + 1;
  }
}

/**
 * Moves the story to a new tier. With `routing.escalationStart: "base-commit"` the work the earlier passes
 * left is set aside first (git stash, as a failed story's is), so the tier starts from the story's base
 * commit; returns the stash it went to, if any.
 */
export async function startTier(
  run: RunContext,
  ctx: StoryContext,
  tier: string,
): Promise<string | undefined> {
  const from = ctx.tier;
  ctx.tier = tier;
  if (run.config.routing.escalationStart !== "base-commit") return undefined;
  return run.git.setAside(
    `gantry(${ctx.story.id}) ${from} tier work, set aside for ${tier}, run ${run.runId}`,
  );
}

/**
 * After an `escalate`: moves the story to its next pass's tier, announcing a new tier with
 * `escalation:tier-change`. False when the ladder is exhausted.
 */
export async function climb(
  run: RunContext,
  ctx: StoryContext,
  ladder: TierLadder,
  reason: string,
): Promise<boolean> {
  const next = ladder.afterEscalate();
  if (next === undefined) return false;
  if (!next.changed) return true;
  const from = ctx.tier;
  const stash = await startTier(run, ctx, next.tier);
  run.bus.emit("escalation:tier-change", {
    storyId: ctx.story.id,
    from,
    to: next.tier,
    reason,
    ...(stash ? { setAside: stash } : {}),
  });
  return true;
}
