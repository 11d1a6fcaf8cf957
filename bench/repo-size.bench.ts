/**
 * What a story costs as the repository grows: gantry's wall per story against a shell loop that runs the
 * same commands and `git add -A && git commit` per story, on a repository of 100 and of 50,000 files
 * (goal at 50,000: at most 2.5x), and how many git programs one story starts at 100 files (git's own
 * trace counts them). Run alone: `node --import tsx bench/repo-size.bench.ts` (after `npm run build`).
 */
import { pathToFileURL } from "node:url";
import { makeProbe, movesHead } from "./cost-probe.js";
import { makeFeatureProject, timeBaseline, timeGantry } from "./feature-project.js";
import { median, type Row, requireBuiltCli, row } from "./harness.js";

const STORIES = 3;
const SIZES = (process.env.BENCH_REPO_SIZES ?? "100,50000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_REPO_RUNS ?? 2);

export async function runRepoSizeBench(): Promise<Row[]> {
  requireBuiltCli();
  const rows: Row[] = [];
  for (const files of SIZES) {
    const project = makeFeatureProject(STORIES, files);
    try {
      const gantry: number[] = [];
      const script: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        gantry.push((await timeGantry(project)).wallMs / STORIES);
        script.push((await timeBaseline(project)).wallMs / STORIES);
      }
      rows.push(
        row(
          `story on ${files.toLocaleString("en")} files: wall per story`,
          gantry,
          median(script),
          "ms",
          `baseline: a shell loop, the same commands and git add -A && git commit${files >= 50_000 ? "; goal ratio <= 2.5" : ""}`,
        ),
      );
      if (files <= 100) rows.push(await gitProgramsPerStory(project));
    } finally {
      project.remove();
    }
  }
  return rows;
}

/** git programs a story starts (the second and third story of a run: the first also holds the run's start). */
async function gitProgramsPerStory(project: ReturnType<typeof makeFeatureProject>): Promise<Row> {
  const probe = makeProbe();
  try {
    await timeGantry(project, undefined, [], probe.env);
    const counts = [0];
    for (const args of probe.gitCommands()) {
      counts[counts.length - 1] = (counts.at(-1) as number) + 1;
      if (movesHead(args)) counts.push(0);
    }
    const stories = counts.slice(1, STORIES);
    return row(
      "git programs a story starts (100 files)",
      stories,
      2,
      "",
      "baseline: the shell loop's add and commit",
    );
  } finally {
    probe.remove();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runRepoSizeBench().then((rows) => {
    for (const r of rows)
      console.log(
        `${r.name}: ${r.median.toFixed(1)} ${r.unit} (baseline ${r.baseline.toFixed(1)}, ${(r.median / r.baseline).toFixed(2)}x)`,
      );
  });
}
