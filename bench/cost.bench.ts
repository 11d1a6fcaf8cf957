/**
 * gantry's own cost per story as the repository grows: the per-story feature of story-overhead.bench.ts
 * in a repository of 100 committed files (and, with BENCH_COST_SIZES, of 10,000 and 50,000: ~1 KB files
 * ten folders deep), gantry against the shell loop (agent, test, typecheck, lint, `git add -A && git
 * commit`), each gantry run both as the first in a fresh copy (no stat cache: the first judge hashes every
 * file) and as a later run in the same working tree (timeGantryLater: an earlier run's stat cache). Then, from a git shim and a spawn counter, the full working-tree scans and the child
 * processes a story costs, and review with two independent 1 s checks.
 * Run alone: `node --import tsx bench/cost.bench.ts` (after `npm run build`).
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { createEventBus } from "../src/bus/event-bus.js";
import { ConfigSchema } from "../src/config/schema.js";
import { openRepo } from "../src/git/repo.js";
import { VerdictBook } from "../src/ledger/book.js";
import { runReview } from "../src/review/orchestrator.js";
import { silentLogger } from "../src/util/logger.js";
import { isFullScan, makeProbe, movesHead, statCheck, subcommandOf } from "./cost-probe.js";
import {
  type FeatureProject,
  makeFeatureProject,
  timeBaseline,
  timeGantry,
  timeGantryLater,
} from "./feature-project.js";
import { median, type Row, requireBuiltCli, row, type Timed } from "./harness.js";

/** Repository sizes measured; `BENCH_COST_SIZES=100,10000,50000` for the large ones. */
const SIZES = (process.env.BENCH_COST_SIZES ?? "100")
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n >= 0);
const STORIES = Number(process.env.BENCH_COST_STORIES ?? 10);
const RUNS = Number(process.env.BENCH_COST_RUNS ?? 3);
/** Another build measured in the same run, interleaved with this one: its rows say "(before)". */
/** Which parts run: `sizes`, `counts`, `review` (all three unless BENCH_COST_PARTS names some). */
const PARTS = new Set((process.env.BENCH_COST_PARTS ?? "sizes,counts,review").split(","));
const BEFORE = process.env.BENCH_CLI_BEFORE ? resolve(process.env.BENCH_CLI_BEFORE) : undefined;

/**
 * Whether each size is also measured as a later run in the same working tree (after an untimed earlier run
 * there: timeGantryLater), besides the first run in a fresh copy; `BENCH_COST_LATER=0` leaves it out.
 */
const LATER = process.env.BENCH_COST_LATER !== "0";

/** Stories of the second, shorter run of each size: slope and intercept come from the two counts. */
const SMALL = Number(process.env.BENCH_COST_SMALL ?? 2);

interface Runs {
  gantry: Timed[];
  baseline: Timed[];
  /** The BENCH_CLI_BEFORE build, when one is given. */
  before: Timed[];
  /** The same two builds as the second gantry run in a working tree (LATER). */
  later: Timed[];
  laterBefore: Timed[];
}

interface SizeMeasures extends Runs {
  files: number;
  /** The same with SMALL stories, run interleaved with the others. */
  small: Runs;
}

async function measureSize(files: number): Promise<SizeMeasures> {
  const project = makeFeatureProject(STORIES, files);
  const short = SMALL > 0 && SMALL < STORIES ? makeFeatureProject(SMALL, files) : undefined;
  const m: SizeMeasures = {
    files,
    gantry: [],
    baseline: [],
    before: [],
    later: [],
    laterBefore: [],
    small: { gantry: [], baseline: [], before: [], later: [], laterBefore: [] },
  };
  const stepsOf = (p: FeatureProject, r: Runs) => [
    async () => r.gantry.push(await timeGantry(p)),
    async () => r.baseline.push(await timeBaseline(p)),
    ...(BEFORE ? [async () => r.before.push(await timeGantry(p, BEFORE))] : []),
    ...(LATER ? [async () => r.later.push(await timeGantryLater(p))] : []),
    ...(LATER && BEFORE ? [async () => r.laterBefore.push(await timeGantryLater(p, BEFORE))] : []),
  ];
  try {
    for (let i = 0; i < RUNS; i++) {
      const steps = [...stepsOf(project, m), ...(short ? stepsOf(short, m.small) : [])];
      // Rotate who goes first, so a slow spell on the machine does not always land on the same one.
      for (let k = 0; k < steps.length; k++) await (steps[(i + k) % steps.length] as () => Promise<number>)();
    }
  } finally {
    project.remove();
    short?.remove();
  }
  return m;
}

/** What the later-run rows say after the size: the first-run rows (fresh copies) keep their names. */
const LATER_TAG = ", later run in the same tree";

function sizeRows(m: SizeMeasures): Row[] {
  const rows = timeRows(m, m.gantry, "");
  if (m.before.length > 0) rows.push(...timeRows(m, m.before, " (before)"));
  if (m.later.length > 0) rows.push(...timeRows(m, m.later, LATER_TAG));
  if (m.laterBefore.length > 0) rows.push(...timeRows(m, m.laterBefore, `${LATER_TAG} (before)`));
  if (m.small.gantry.length > 0) {
    rows.push(...slopeRows(m, m.gantry, m.small.gantry, ""));
    if (m.before.length > 0) rows.push(...slopeRows(m, m.before, m.small.before, " (before)"));
    if (m.later.length > 0) rows.push(...slopeRows(m, m.later, m.small.later, LATER_TAG));
    if (m.laterBefore.length > 0)
      rows.push(...slopeRows(m, m.laterBefore, m.small.laterBefore, `${LATER_TAG} (before)`));
  }
  return rows;
}

/**
 * Per story (slope) and run start (intercept) from the runs of STORIES and SMALL stories, pair by pair
 * (run i of each, measured next to each other). The per-story goals are about the slope: a run's start,
 * spread over few stories, is not a story's cost.
 */
function slopeRows(m: SizeMeasures, long: Timed[], short: Timed[], tag: string): Row[] {
  const label = `${m.files.toLocaleString("en")} files${tag}`;
  const span = STORIES - SMALL;
  const slopes = (a: number[], b: number[]) => a.map((v, i) => (v - (b[i] as number)) / span);
  const intercepts = (a: number[], b: number[]) => slopes(a, b).map((s, i) => (b[i] as number) - SMALL * s);
  const cpu = (t: Timed[]) => t.map((x) => x.cpuMs ?? Number.NaN);
  const wall = (t: Timed[]) => t.map((x) => x.wallMs);
  const loopCpu = slopes(cpu(m.baseline), cpu(m.small.baseline));
  const loopWall = slopes(wall(m.baseline), wall(m.small.baseline));
  const gCpu = slopes(cpu(long), cpu(short));
  const gWall = slopes(wall(long), wall(short));
  const counts = `slope of ${SMALL} and ${STORIES} stories`;
  return [
    row(
      `${label}: CPU per story (${counts})`,
      gCpu,
      median(loopCpu),
      "ms",
      "user+sys of the tree; baseline: the loop's slope; goal ratio <= 1.5 at 50,000 files",
    ),
    row(
      `${label}: own CPU per story (${counts})`,
      gCpu.map((g, i) => g - (loopCpu[i] as number)),
      median(loopCpu),
      "ms",
      "gantry's slope - the loop's; goal < 100 ms at 100 files",
    ),
    row(
      `${label}: own wall per story (${counts})`,
      gWall.map((g, i) => g - (loopWall[i] as number)),
      median(loopWall),
      "ms",
      "gantry's slope - the loop's, wall; goal < 100 ms at 100 files",
    ),
    row(
      `${label}: run start CPU (intercept)`,
      intercepts(cpu(long), cpu(short)),
      median(intercepts(cpu(m.baseline), cpu(m.small.baseline))),
      "ms",
      "CPU at 0 stories from the two counts; baseline: the loop's",
    ),
  ];
}

function timeRows(m: Runs & { files: number }, gantry: Timed[], tag: string): Row[] {
  const n = STORIES;
  const label = `${m.files.toLocaleString("en")} files${tag}`;
  const perStory = (t: Timed[]) => t.map((x) => x.wallMs / n);
  const rows = [
    row(
      `${label}: wall per story`,
      perStory(gantry),
      median(perStory(m.baseline)),
      "ms",
      "baseline: the shell loop's wall per story; goal ratio <= 1.5 at 50,000 files",
    ),
    row(
      `${label}: gantry's own time per story`,
      gantry.map((g, i) => (g.wallMs - (m.baseline[i] as Timed).wallMs) / n),
      median(perStory(m.baseline)),
      "ms",
      "(gantry - loop) / stories; baseline: the loop per story; goal < 100 ms at 100 files",
    ),
  ];
  const cpu = gantry.map((t) => t.cpuMs);
  const baseCpu = m.baseline.map((t) => t.cpuMs);
  if (cpu.every((v) => v !== undefined) && baseCpu.every((v) => v !== undefined)) {
    rows.push(
      row(
        `${label}: CPU per story (whole tree)`,
        (cpu as number[]).map((c) => c / n),
        median(baseCpu as number[]) / n,
        "ms",
        "user+sys of gantry and every child; baseline: the loop's",
      ),
    );
  }
  return rows;
}

export interface StoryCounts {
  stories: number;
  /** Per story, averaged over the stories after the first (the run's start is the first story's share). */
  scans: number;
  statChecks: number;
  gitCommands: number;
  children: number;
  /** The whole run: every story, the run's start and end. */
  total: { scans: number; gitCommands: number; children: number };
}

/**
 * One gantry run (or the loop, `baseline`) on `project` with the shim and the spawn counter. A story's
 * share is what lies between the commit before it and its own (the compare-and-swap of HEAD, `update-ref
 * … HEAD`, which every build runs once a commit, also those that write the commit object in node; the
 * loop's `commit`).
 */
export async function countRun(
  project: FeatureProject,
  baseline = false,
  cli?: string,
): Promise<StoryCounts> {
  const probe = makeProbe();
  try {
    const env = baseline ? { PATH: probe.env.PATH as string } : probe.env;
    await (baseline ? timeBaseline(project, env) : timeGantry(project, cli, [], env));
    const git = probe.gitCommands();
    const children = probe.children();
    const gitStories = split(git, (args) =>
      baseline ? subcommandOf(args).name === "commit" : movesHead(args),
    );
    // A story's children from its agent session to the next one's (git runs from the helper, not from node).
    const childStories = split(children, (args) => args.join(" ").includes("GANTRY_STORY_ID"));
    const steady = gitStories.slice(1, project.stories);
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    return {
      stories: project.stories,
      scans: mean(steady.map((g) => g.filter(isFullScan).length)),
      statChecks: mean(steady.map((g) => g.filter(statCheck).length)),
      gitCommands: mean(steady.map((g) => g.length)),
      children: mean(childStories.slice(1, project.stories).map((c) => c.length)),
      total: { scans: git.filter(isFullScan).length, gitCommands: git.length, children: children.length },
    };
  } finally {
    probe.remove();
  }
}

/** Splits a log after each entry that ends a story. */
function split(entries: string[][], ends: (args: string[]) => boolean): string[][][] {
  const parts: string[][][] = [[]];
  for (const args of entries) {
    (parts.at(-1) as string[][]).push(args);
    if (ends(args)) parts.push([]);
  }
  return parts;
}

function countRows(gantry: StoryCounts, loop: StoryCounts, tag = ""): Row[] {
  const one = (name: string, v: number, base: number, note: string): Row =>
    row(`${name}${tag}`, [v], base, "n", note);
  const steady = `stories 2-${gantry.stories} of ${gantry.stories}`;
  return [
    one(
      `full working-tree scans per story (${steady})`,
      gantry.scans,
      loop.scans,
      `git shim; baseline: the loop (add -A); goal <= 2; whole run ${gantry.total.scans}`,
    ),
    one(
      `stat checks per story (${steady})`,
      gantry.statChecks,
      0,
      "status with the untracked cache (stats, reads only changed folders)",
    ),
    one(
      `git commands per story (${steady})`,
      gantry.gitCommands,
      loop.gitCommands,
      `git shim; baseline: the loop's; whole run ${gantry.total.gitCommands}`,
    ),
    one(
      `children node spawns per story (${steady})`,
      gantry.children,
      6,
      `spawn counter (--require); baseline: the loop forks 6 + git a story; whole run ${gantry.total.children}`,
    ),
  ];
}

/**
 * runReview on a real repository with typecheck and lint each `sleep 1`, against the same with one check
 * (what two checks cost when they run at the same time). In-process: a whole gantry run around it would
 * bury the difference under the machine's other load.
 */
async function reviewRows(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-review-"));
  try {
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: root });
    execFileSync(
      "git",
      ["-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty", "-m", "b"],
      {
        cwd: root,
      },
    );
    const time = async (commands: Record<string, string>): Promise<number> => {
      const run = {
        root,
        config: ConfigSchema.parse({ quality: { commands, timeoutSeconds: 30 } }),
        signal: new AbortController().signal,
        bus: createEventBus({ runId: "bench" }),
        verdicts: new VerdictBook("f", randomBytes(32)),
        git: await openRepo(root),
        logger: silentLogger,
      };
      // Judged first: review's own judge then finds the tree judged (nothing ran since), and the time is the checks'.
      await run.git.judge();
      const started = performance.now();
      const result = await runReview(run, "US-1", 1);
      const ms = performance.now() - started;
      run.git.close();
      if (!result.success) throw new Error("review bench: a check failed");
      return ms;
    };
    const two: number[] = [];
    const one: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      two.push(await time({ typecheck: "sleep 1", lint: "sleep 1" }));
      one.push(await time({ lint: "sleep 1" }));
    }
    return [
      row(
        "review with two independent 1 s checks: wall",
        two,
        median(one),
        "ms",
        "runReview, typecheck and lint each `sleep 1`; baseline: one such check; goal <= 1200 ms",
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runCostBench(): Promise<Row[]> {
  requireBuiltCli();
  const rows: Row[] = [];
  if (PARTS.has("sizes")) for (const files of SIZES) rows.push(...sizeRows(await measureSize(files)));
  if (PARTS.has("counts")) rows.push(...(await countsRows()));
  if (PARTS.has("review")) rows.push(...(await reviewRows()));
  return rows;
}

async function countsRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const project = makeFeatureProject(3, 100);
  try {
    const gantry = await countRun(project);
    const loop = await countRun(project, true);
    rows.push(...countRows(gantry, loop));
    if (BEFORE) rows.push(...countRows(await countRun(project, false, BEFORE), loop, " (before)"));
  } finally {
    project.remove();
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runCostBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
