import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ConfigInput, ConfigSchema } from "../../src/config/schema.js";
import { attemptsAt, TierLadder } from "../../src/pipeline/tier-ladder.js";

const config = (routing: ConfigInput["routing"] = {}) => ConfigSchema.parse({ routing });

/** The tiers a ladder's passes run at until it is exhausted, escalating after every pass. */
function climbAll(ladder: TierLadder): string[] {
  const tiers: string[] = [];
  for (;;) {
    ladder.enterPass();
    tiers.push(ladder.tier);
    if (ladder.afterEscalate() === undefined) return tiers;
  }
}

describe("TierLadder", () => {
  it("climbs one tier per escalate from where routing started it, then is exhausted", () => {
    assert.deepEqual(climbAll(TierLadder.from(config(), "fast")), ["fast", "balanced", "powerful"]);
    assert.deepEqual(climbAll(TierLadder.from(config(), "balanced")), ["balanced", "powerful"]);
    assert.deepEqual(climbAll(TierLadder.from(config(), "powerful")), ["powerful"]);
  });

  it("gives each tier its attempts: attemptsPerTier, or tierAttempts by name", () => {
    const custom = config({ attemptsPerTier: 2, tierAttempts: { powerful: 3 } });
    assert.equal(attemptsAt(custom, "fast"), 2);
    assert.equal(attemptsAt(custom, "powerful"), 3);
    assert.deepEqual(climbAll(TierLadder.from(custom, "balanced")), [
      "balanced",
      "balanced",
      "powerful",
      "powerful",
      "powerful",
    ]);
  });

  it("says whether the next pass changed tier", () => {
    const ladder = TierLadder.from(config({ tierAttempts: { fast: 2 } }), "fast");
    ladder.enterPass();
    assert.deepEqual(ladder.afterEscalate(), { tier: "fast", changed: false });
    ladder.enterPass();
    assert.deepEqual(ladder.afterEscalate(), { tier: "balanced", changed: true });
  });

  it("restarts at its first tier with fresh attempts (a human-review retry)", () => {
    const ladder = TierLadder.from(config(), "balanced");
    assert.deepEqual(climbAll(ladder), ["balanced", "powerful"]);
    ladder.restart();
    assert.deepEqual(climbAll(ladder), ["balanced", "powerful"]);
  });

  it("bounds the passes: the climb twice and one more", () => {
    assert.equal(TierLadder.from(config(), "fast").maxPasses(), 7);
    assert.equal(TierLadder.from(config({ tierAttempts: { powerful: 2 } }), "powerful").maxPasses(), 5);
  });

  it("starts at the first tier for a tier routing.tiers does not name", () => {
    assert.equal(TierLadder.from(config(), "nonexistent").tier, "fast");
  });
});
