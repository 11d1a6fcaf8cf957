import type { loadConfig } from "../config/loader.js";
import type { loadPrd } from "../prd/load.js";
import { selectStories } from "../prd/select.js";

/**
 * `gantry run --dry-run`: each selected story's route (complexity, tier, why), its dependencies and its
 * readiness gaps, as lines or with --json one document; nothing is run or written.
 */
export async function dryRun(
  root: string,
  prd: ReturnType<typeof loadPrd>,
  options: { feature: string; story: string[]; json?: boolean },
  config: ReturnType<typeof loadConfig>,
): Promise<number> {
  const { routeStory } = await import("../stages/route.js");
  const { readinessPreview } = await import("../stages/readiness-preview.js");
  const readiness = await readinessPreview(root, prd, config);
  const plan = selectStories(prd, options.story).map((story) => ({
    id: story.id,
    title: story.title,
    dependencies: story.dependencies,
    ...routeStory(story, config),
    ...(readiness.has(story.id) ? { readiness: readiness.get(story.id) } : {}),
  }));
  if (options.json) process.stdout.write(`${JSON.stringify({ feature: options.feature, plan })}\n`);
  else
    for (const p of plan) {
      const gaps = (p.readiness ?? []).map(
        (g) => `${g.code}${g.subject ? ` ${g.subject}` : ""}${g.severity === "blocker" ? " (parks it)" : ""}`,
      );
      const ready = gaps.length > 0 ? `  readiness: ${gaps.join(", ")}` : "";
      const after = p.dependencies.length > 0 ? `  after ${p.dependencies.join(", ")}` : "";
      process.stdout.write(`${p.id}  ${p.complexity}/${p.tier}  ${p.title}  (${p.reason})${after}${ready}\n`);
    }
  return 0;
}
