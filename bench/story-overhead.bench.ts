/**
 * Per-story overhead: `gantry run` on a generated feature of 50 stories (agent and quality commands
 * trivial, regression deferred) against a shell script that spawns the same commands in the same order
 * and makes the same commits. gantry's own cost per story is (gantry wall - script wall) / stories.
 * Run alone: `node --import tsx bench/story-overhead.bench.ts` (after `npm run build`).
 */
import { pathToFileURL } from "node:url";
import { makeFeatureProject, timeBaseline, timeGantry } from "./feature-project.js";
import { median, type Row, requireBuiltCli, row, type Timed } from "./harness.js";

export const STORIES = 50;
export const RUNS = 3;

export interface StoryMeasures {
  stories: number;
  gantry: Timed[];
  baseline: Timed[];
}

/** `runs` runs of gantry and of the script, alternating, each on a fresh copy of the same project. */
export async function measureStories(stories: number, runs: number): Promise<StoryMeasures> {
  requireBuiltCli();
  const project = makeFeatureProject(stories);
  const measures: StoryMeasures = { stories, gantry: [], baseline: [] };
  try {
    for (let i = 0; i < runs; i++) {
      // Alternate which goes first, so a slow spell on the machine does not always land on the same one.
      if (i % 2 === 0) {
        measures.gantry.push(await timeGantry(project));
        measures.baseline.push(await timeBaseline(project));
      } else {
        measures.baseline.push(await timeBaseline(project));
        measures.gantry.push(await timeGantry(project));
      }
    }
  } finally {
    project.remove();
  }
  return measures;
}

/** gantry's own milliseconds per story, one value per (gantry, script) pair. */
export function ownMsPerStory(m: StoryMeasures): number[] {
  return m.gantry.map((g, i) => (g.wallMs - (m.baseline[i] as Timed).wallMs) / m.stories);
}

export function storyRows(m: StoryMeasures): Row[] {
  const n = m.stories;
  const walls = m.gantry.map((t) => t.wallMs);
  const base = median(m.baseline.map((t) => t.wallMs));
  const rows = [
    row(`run ${n} stories: wall`, walls, base, "ms", "baseline: the shell script; goal ratio < 1.25"),
    row(
      `run ${n} stories: gantry's own time per story`,
      ownMsPerStory(m),
      base / n,
      "ms",
      "(gantry - script) / stories; baseline: the script's time per story; goal < 15 ms",
    ),
  ];
  const cpu = m.gantry.map((t) => t.cpuMs);
  const baseCpu = m.baseline.map((t) => t.cpuMs);
  if (cpu.every((v) => v !== undefined) && baseCpu.every((v) => v !== undefined)) {
    rows.push(
      row(
        `run ${n} stories: CPU (user+sys, whole tree)`,
        cpu as number[],
        median(baseCpu as number[]),
        "ms",
        "baseline: the script's CPU; less sensitive to other load than wall time",
      ),
    );
  }
  return rows;
}

export async function runStoryOverheadBench(): Promise<Row[]> {
  return storyRows(await measureStories(STORIES, RUNS));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runStoryOverheadBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
