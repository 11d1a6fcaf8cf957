import { InputError } from "../config/input-error.js";
import type { loadPrd } from "../prd/load.js";
import { featurePrdPath } from "./project.js";

/** What the shard side of `gantry run --shard i/K` and `gantry merge-shards` reads of the run's options (docs/ci.md). */
export interface ShardOptions {
  feature: string;
  shard?: string;
  /** The stories to run: set here from the shard's plan, or from the shards to merge. */
  story: string[];
  push?: boolean;
}

/**
 * `--shard i/K`: this runner's stories from the same plan `gantry plan-shards` prints, on the shard's
 * branch. A shard with no story still gets its branch (pushed, so the merge job finds every shard).
 */
export async function enterShard(
  root: string,
  prd: ReturnType<typeof loadPrd>,
  options: ShardOptions,
): Promise<{ index: number; total: number }> {
  const { parseShard, planShards } = await import("../prd/shard-plan.js");
  const shard = parseShard(options.shard ?? "");
  if (!shard)
    throw new InputError(
      "--shard",
      "",
      `expected i/K with 1 ≤ i ≤ K ≤ 256, got ${JSON.stringify(options.shard)}`,
      "GANTRY_E_USAGE",
    );
  if (options.story.length > 0)
    throw new InputError("--shard", "", "takes its stories from the plan; drop --story", "GANTRY_E_USAGE");
  const { enterShardBranch, finishShard } = await import("../pipeline/shards/shard-branch.js");
  const mine = planShards(prd, shard.total)[shard.index - 1]?.stories ?? [];
  const branch = await enterShardBranch(root, options.feature, shard.index);
  process.stderr.write(
    `gantry: shard ${shard.index}/${shard.total} on ${branch}: ${mine.join(", ") || "no story"}\n`,
  );
  options.story = mine;
  if (mine.length === 0) {
    const { path } = featurePrdPath(root, options.feature);
    for (const note of await finishShard(root, options.feature, shard.index, path, options.push !== false))
      process.stderr.write(`gantry: ${note}\n`);
  }
  return shard;
}

/** `gantry merge-shards`: the shard branches of the pinned plan (fetched from origin when there is one), and their stories. */
export async function shardsToMerge(
  root: string,
  prdPath: string,
  prd: ReturnType<typeof loadPrd>,
  options: ShardOptions & { shards?: string },
) {
  const { findShardTips, pinToPlan } = await import("../pipeline/shards/shard-tips.js");
  const { planShards } = await import("../prd/shard-plan.js");
  const total = Number(options.shards);
  if (!Number.isInteger(total) || total < 1 || total > 256)
    throw new InputError(
      "--shards",
      "",
      `expected the K of the plan, 1 to 256, got ${JSON.stringify(options.shards)}`,
      "GANTRY_E_USAGE",
    );
  const found = await findShardTips(root, options.feature, prdPath, true);
  const shards = pinToPlan(found, planShards(prd, total), (line) =>
    process.stderr.write(`gantry: ${line}\n`),
  );
  if (shards.length === 0)
    throw new InputError(
      "--feature",
      "",
      `no shard branches gantry/${options.feature}/shard-* on origin or here; run \`gantry run --shard i/K\` first`,
      "GANTRY_E_NOT_FOUND",
    );
  options.story = [...new Set(shards.flatMap((s) => s.passed))].filter((id) => id !== "");
  return shards;
}
