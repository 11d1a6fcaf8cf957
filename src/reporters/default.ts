import { oneLine } from "../util/text.js";
import { duration, usd } from "./format.js";
import { NoOptions, parseOptions } from "./options.js";
import { MERGE_NEXT, progressLineIn, stamp } from "./progress-lines.js";
import { RunModel } from "./run-model.js";
import type { StoryRecord } from "./run-records.js";
import { passesThisRun } from "./story-fold.js";
import type { EventArgs, Reporter, ReporterContext, ReporterStream } from "./types.js";

const SPINNER = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const TICK_MS = 200;
const ESC = "\u001b[";

/**
 * Progress in the terminal. In an interactive terminal (and `CI` unset): finished stories scroll by above a live
 * view of the running story (its stage, elapsed time, cost, tier) and the run's totals, redrawn in place.
 * Otherwise: the plain timestamped lines of `progressLine`, one per event that has one.
 */
export default function defaultReporter(options: unknown, context: ReporterContext): Reporter {
  parseOptions(NoOptions, options);
  return isLive(context.stdout, context.env) ? live(context) : plain(context);
}

export function isLive(stdout: ReporterStream, env: ReporterContext["env"]): boolean {
  const ci = env.CI !== undefined && env.CI !== "" && env.CI !== "0" && env.CI !== "false";
  return Boolean(stdout.isTTY) && !ci && env.TERM !== "dumb";
}

function plain(context: ReporterContext): Reporter {
  const model = new RunModel();
  return {
    onEvent(...args) {
      model.apply(...args);
      const line = progressLineIn(model, ...args);
      if (line !== undefined) context.stdout.write(`${stamp(context.now())}${line}\n`);
    },
  };
}

function live(context: ReporterContext): Reporter {
  const { stdout, env, now } = context;
  const model = new RunModel();
  const paint = palette(!env.NO_COLOR);
  let drawn = 0;
  let frame = 0;
  let ended = false;
  let timer: NodeJS.Timeout | undefined;

  /** Cut to the terminal's width (less `used` columns before it), so no line wraps and the redraw stays in place. */
  const fit = (text: string, used = 0) => {
    const width = Math.max(20, (stdout.columns ?? 80) - 1 - used);
    const chars = [...text];
    return chars.length <= width ? text : `${chars.slice(0, width - 1).join("")}…`;
  };
  const since = (at: string | undefined) =>
    at ? duration(Math.max(0, now().getTime() - Date.parse(at))) : "";

  const block = (): string[] => {
    if (ended || !model.startedAt) return [];
    const running = model.list().filter((s) => s.status === "in-progress");
    const room = Math.max(1, (stdout.rows ?? 24) - 2);
    const spin = SPINNER[frame % SPINNER.length] as string;
    const lines = running.slice(0, room).map((s) => {
      const parts = [s.stage ?? "starting", since(s.startedAt), usd(s.costUsd), `tier ${s.tier ?? "?"}`];
      if (passesThisRun(s) > 1) parts.push(`pass ${passesThisRun(s)}`);
      // The facts first: when the line is too long for the terminal, the title is what gets cut.
      return `${paint.cyan(spin)} ${fit(`${s.id} ${parts.join(" · ")}  ${oneLine(s.title)}`, 2)}`;
    });
    const done = model.list().filter((s) => s.status !== "in-progress" && s.status !== "pending").length;
    lines.push(
      paint.dim(
        fit(
          `  ${done}/${model.totalStories} stories · ${tally(model)} · ${since(model.startedAt)} · ${usd(model.costUsd)}`,
        ),
      ),
    );
    return lines;
  };

  let last = "";
  const redraw = (above: string[]) => {
    const lines = block();
    const shown = lines.join("\n");
    if (above.length === 0 && shown === last) return;
    let out = drawn > 0 ? `${ESC}${drawn}A\r${ESC}J` : "";
    for (const line of [...above, ...lines]) out += `${line}\n`;
    drawn = lines.length;
    last = shown;
    stdout.write(out);
  };

  return {
    onEvent(...args) {
      model.apply(...args);
      const [type] = args;
      if (type === "run:start" && !timer) {
        timer = setInterval(() => {
          frame += 1;
          redraw([]);
        }, TICK_MS);
        timer.unref();
      }
      if (type === "run:complete") {
        clearInterval(timer);
        ended = true;
      }
      redraw(settled(args, model, paint));
    },
  };
}

/** The lines that stay on screen for an event: finished stories, escalations, the run's end. */
function settled(args: EventArgs, model: RunModel, paint: Palette): string[] {
  const [type, e] = args;
  const facts = (s: StoryRecord) =>
    paint.dim(
      `  ${[
        s.durationMs !== undefined ? duration(s.durationMs) : "",
        usd(s.costUsd),
        s.tier ? `tier ${s.tier}` : "",
        `${passesThisRun(s)} ${passesThisRun(s) === 1 ? "pass" : "passes"}`,
      ]
        .filter(Boolean)
        .join(" · ")}`,
    );
  const story = (id: string) => model.stories.get(id) as StoryRecord;
  switch (type) {
    case "story:complete":
      // --parallel: passed in its worktree; its merge (judged again) makes it passed, or not.
      if (e.inWorktree)
        return [paint.dim(`  ${e.story.id} passed in its worktree; merging it into the feature branch`)];
      return [`${paint.green("✓")} ${e.story.id} ${oneLine(e.story.title)}${facts(story(e.story.id))}`];
    case "story:fail":
      return [
        `${paint.red("✗")} ${e.story.id} ${oneLine(e.story.title)}${facts(story(e.story.id))}`,
        `    ${paint.red(oneLine(e.reason))}`,
      ];
    case "story:skip":
      return [
        `${paint.yellow("↷")} ${e.story.id} ${oneLine(e.story.title)}  ${paint.yellow(oneLine(e.reason))}`,
      ];
    case "escalation:tier-change":
      return [paint.dim(`  ↑ ${e.storyId} ${e.from} → ${e.to}: ${oneLine(e.reason)}`)];
    // --parallel: a worktree's setup can take a while (a virtualenv, an install) before the story starts.
    case "worktree:setup":
      return e.phase === "start"
        ? [paint.dim(`  ⚙ ${e.storyId} setting up its worktree: ${oneLine(e.command, 80)}`)]
        : [];
    // --parallel: a story's pass in its worktree counts once it merged into the feature branch.
    case "story:merge": {
      if (e.outcome !== "merged") {
        return [
          paint.yellow(
            `  ⤷ ${e.storyId} did not merge: ${oneLine(e.reason ?? "")}${e.next ? `; ${MERGE_NEXT[e.next]}` : ""}`,
          ),
        ];
      }
      const s = story(e.storyId);
      return [
        `${paint.green("✓")} ${e.storyId} ${oneLine(s.title)}${facts(s)}`,
        paint.dim(`  ⤷ merged into the feature branch (${(e.sha ?? "").slice(0, 12)})`),
      ];
    }
    case "run:pause":
      return [paint.yellow(`⏸ run paused: ${oneLine(e.reason)}`)];
    case "run:error":
      return [paint.red(`✗ run error: ${oneLine(e.error.message)}`)];
    // The run directory follows from gantry itself, on every exit (cli/run.ts).
    case "run:complete":
      return ["", `${tally(model)} · ${duration(e.summary.durationMs)} · ${usd(e.summary.costUsd)}`];
    default:
      return [];
  }
}

function tally(model: RunModel): string {
  const c = model.counts();
  const parts = (["passed", "failed", "blocked", "skipped", "paused"] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`);
  return parts.join(" · ") || "0 passed";
}

type Palette = Record<"green" | "red" | "yellow" | "cyan" | "dim", (text: string) => string>;

function palette(enabled: boolean): Palette {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `${ESC}${open}m${text}${ESC}${close}m` : text;
  return {
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
  };
}
