import { loadPrd } from "../prd/load.js";
import { statusOf } from "../prd/story.js";
import { featurePrdPath, listFeatures, projectRoot } from "./project.js";

/** `gantry status`: each feature's stories with their status, attempts and cost. */
export async function statusCommand(options: {
  feature?: string;
  dir?: string;
  json?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const features = options.feature ? [options.feature] : listFeatures(root);
  const report = features.map((feature) => featureStatus(root, feature));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  if (report.length === 0) process.stdout.write("no features under .gantry/features/\n");
  for (const { feature, stories } of report) {
    const counts = new Map<string, number>();
    for (const s of stories) counts.set(s.status, (counts.get(s.status) ?? 0) + 1);
    process.stdout.write(`${feature}: ${[...counts].map(([k, v]) => `${v} ${k}`).join(", ")}\n`);
    for (const s of stories) {
      process.stdout.write(
        `  ${s.status.padEnd(11)} ${s.id}  ${s.title}${s.reason && s.status !== "passed" ? `  — ${s.reason}` : ""}\n`,
      );
    }
  }
  return 0;
}

/** One feature as `status --json` shows it (and `run --json`, with the run's facts added). */
export function featureStatus(root: string, feature: string) {
  const { path, display } = featurePrdPath(root, feature);
  const prd = loadPrd(path, display);
  return {
    feature,
    stories: prd.userStories.map((s) => ({
      id: s.id,
      title: s.title,
      status: statusOf(s),
      attempts: s.attempts ?? 0,
      ...(typeof s.costUsd === "number" ? { costUsd: s.costUsd } : {}),
      ...(typeof s.failureReason === "string" ? { reason: s.failureReason } : {}),
    })),
  };
}
