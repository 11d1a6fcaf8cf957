/**
 * Scale: a 500-story feature on the same trivial commands as the per-story benchmark. Time per story
 * against the 50-story figure (the cost must grow linearly: the ratio stays near 1), gantry's own time
 * per story against the same at 50, and the gantry process's peak RSS (goal: under 150 MB).
 * Run alone: `node --import tsx bench/scale.bench.ts` (after `npm run build`; measures 50 stories once too).
 */
import { pathToFileURL } from "node:url";
import { median, type Row, row, type Timed } from "./harness.js";
import { measureStories, ownMsPerStory, type StoryMeasures } from "./story-overhead.bench.js";

export const STORIES = 500;
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 1);

const perStory = (m: StoryMeasures) => m.gantry.map((t) => t.wallMs / m.stories);
const rss = (runs: Timed[]) => runs.flatMap((t) => (t.maxRssMb === undefined ? [] : [t.maxRssMb]));

/** `reference`: the 50-story measures of this same run, when the per-story benchmark already took them. */
export async function runScaleBench(reference?: StoryMeasures): Promise<Row[]> {
  const small = reference ?? (await measureStories(50, 1));
  const large = await measureStories(STORIES, RUNS);
  const rows = [
    row(
      `run ${STORIES} stories: wall per story`,
      perStory(large),
      median(perStory(small)),
      "ms",
      `baseline: gantry's wall per story at ${small.stories}; linear growth keeps the ratio near 1`,
    ),
    row(
      `run ${STORIES} stories: gantry's own time per story`,
      ownMsPerStory(large),
      median(ownMsPerStory(small)),
      "ms",
      `baseline: the same at ${small.stories} stories`,
    ),
    row(
      `run ${STORIES} stories: script wall per story`,
      large.baseline.map((t) => t.wallMs / large.stories),
      median(small.baseline.map((t) => t.wallMs / small.stories)),
      "ms",
      `the shell script alone; baseline: the script at ${small.stories} stories`,
    ),
  ];
  const peak = rss(large.gantry);
  if (peak.length > 0) {
    rows.push(
      row(
        `run ${STORIES} stories: gantry peak RSS`,
        peak,
        median(rss(small.gantry)),
        "MB",
        `baseline: peak RSS at ${small.stories} stories; goal < 150 MB`,
      ),
    );
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runScaleBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
