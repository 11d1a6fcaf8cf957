import { listRunRecords } from "../runs/run-list.js";
import { projectRoot } from "./project.js";

/** `gantry runs`: every run of the project (or of one feature), oldest first, with how it ended. */
export async function runsCommand(options: {
  feature?: string;
  dir?: string;
  json?: boolean;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const runs = listRunRecords(root, options.feature);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(runs)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    const of = options.feature ? ` of feature ${options.feature}` : "";
    process.stdout.write(`no runs${of} under .gantry/runs/ yet\n`);
    return 0;
  }
  const rows = [
    ["STARTED (UTC)", "FEATURE", "STATUS", "PASSED", "FAILED", "BLOCKED", "SKIPPED", "COST", "DIRECTORY"],
    ...runs.map((r) => [
      r.startedAt.replace("T", " ").slice(0, 19),
      r.feature,
      r.status,
      String(r.passed),
      String(r.failed),
      String(r.blocked),
      String(r.skipped),
      `$${r.costUsd.toFixed(2)}`,
      r.dir,
    ]),
  ];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length))) ?? [];
  for (const row of rows)
    process.stdout.write(
      `${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")}\n`,
    );
  return 0;
}
