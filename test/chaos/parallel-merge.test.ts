import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chaosSeed, Rng } from "./harness.js";
import { mergeTrial, runMergeTrial } from "./parallel-merge.harness.js";

/**
 * `--parallel 2..4` over seeded random features (parallel-merge.harness.ts): stories sharing a file, stories
 * that conflict, stories that depend on each other. Each trial ends with every story merged (a conflict asked
 * through merge-conflict, the story run again on the new tip), `gantry ledger check` passing, and no exit 70.
 * GANTRY_CHAOS_MERGE_TRIALS trials (default 2, of at most GANTRY_CHAOS_MERGE_STORIES stories, default 4;
 * `npm run test:chaos` runs 20 of up to 7); GANTRY_CHAOS_SEED=<seed> GANTRY_CHAOS_MERGE_TRIALS=1 replays one.
 */
const trials = Math.max(1, Number.parseInt(process.env.GANTRY_CHAOS_MERGE_TRIALS ?? "2", 10) || 1);
const maxStories = Math.max(3, Number.parseInt(process.env.GANTRY_CHAOS_MERGE_STORIES ?? "4", 10) || 3);
const first = chaosSeed();

describe("--parallel on random features: every mergeable story merged, conflicts asked, no internal error", () => {
  for (let n = 0; n < trials; n++) {
    const seed = (first + n * 7919) >>> 0;
    it(`seed ${seed}`, async () => {
      const trial = mergeTrial(new Rng(seed), maxStories);
      const { root, broken } = await runMergeTrial(trial);
      const shape = `${trial.ids.length} stories at --parallel ${trial.workers}, slots ${[...trial.slots.keys()].join(",")}, added ${[...trial.added.keys()].join(",")}, dependencies ${JSON.stringify(trial.dependencies)}`;
      assert.deepEqual(
        broken,
        [],
        `seed ${seed} (replay: GANTRY_CHAOS_SEED=${seed} GANTRY_CHAOS_MERGE_TRIALS=1) in ${root}: ${shape}`,
      );
    });
  }
});
