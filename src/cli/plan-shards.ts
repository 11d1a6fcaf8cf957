import { InputError } from "../config/input-error.js";
import { loadPrd } from "../prd/load.js";
import { planShards } from "../prd/shard-plan.js";
import { featurePrdPath, projectRoot } from "./project.js";

/**
 * `gantry plan-shards --feature F --shards K [--json]`: the open stories in K shards. JSON: `matrix` is
 * GitHub Actions' `strategy.matrix` (`include` rows with `shard: "i/K"`), `shards` the plain list for any CI.
 */
export async function planShardsCommand(options: {
  feature: string;
  shards: string;
  dir?: string;
  json?: boolean;
}): Promise<number> {
  const total = Number(options.shards);
  if (!/^\d+$/.test(options.shards.trim()) || total < 1 || total > 256)
    throw new InputError(
      "--shards",
      "",
      `expected a whole number from 1 to 256, got ${JSON.stringify(options.shards)}`,
      "GANTRY_E_USAGE",
    );
  const root = projectRoot(options.dir);
  const { path, display } = featurePrdPath(root, options.feature);
  const shards = planShards(loadPrd(path, display), total);
  if (options.json) {
    const matrix = {
      include: shards.map((s) => ({ shard: s.shard, index: s.index, stories: s.stories.join(" ") })),
    };
    process.stdout.write(`${JSON.stringify({ feature: options.feature, total, matrix, shards })}\n`);
    return 0;
  }
  for (const s of shards)
    process.stdout.write(`shard ${s.shard} (size ${s.size}): ${s.stories.join(", ") || "no story"}\n`);
  return 0;
}
