import { filesNamed } from "../agents/prompt.js";
import type { Config } from "../config/schema.js";
import { trackedFiles } from "../git/tracked-files.js";
import type { ReadinessGap, ReadinessRecord } from "../model/readiness.js";
import { openBlockers, scoreReadiness } from "../prd/readiness.js";
import type { Prd } from "../prd/story.js";
import { existsIn } from "./readiness.js";

/**
 * What the readiness gate would find in each story that has not passed, for `gantry run --dry-run`: no
 * research, no question; accepted codes and verified findings already in prd.json are counted.
 */
export async function readinessPreview(
  root: string,
  prd: Prd,
  config: Config,
): Promise<Map<string, ReadinessGap[]>> {
  const out = new Map<string, ReadinessGap[]>();
  if (!config.readiness.enabled) return out;
  const tracked = await trackedFiles(root).catch(() => new Set<string>());
  const knownIds = new Set(prd.userStories.map((s) => s.id));
  for (const story of prd.userStories) {
    const record: ReadinessRecord = (story as { readiness?: ReadinessRecord }).readiness ?? {};
    const gaps = scoreReadiness({
      story,
      knownIds,
      filesNamed: filesNamed(story),
      exists: (path) => existsIn(tracked, root, path),
      limits: config.readiness,
      findings: record.findings ?? [],
    });
    const open = new Set(openBlockers(gaps, record.accepted ?? []));
    const shown = gaps.map((g) =>
      g.severity === "blocker" && !open.has(g) ? { ...g, severity: "warning" as const } : g,
    );
    if (shown.length > 0) out.set(story.id, shown);
  }
  return out;
}
