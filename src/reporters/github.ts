import { appendFileSync, existsSync, statSync } from "node:fs";
import { z } from "zod";
import { oneLine, truncate } from "../util/text.js";
import { renderMarkdown } from "./markdown.js";
import { parseOptions } from "./options.js";
import { RunModel } from "./run-model.js";
import type { StoryRecord } from "./run-records.js";
import type { Reporter, ReporterContext } from "./types.js";

/** GitHub shows at most 10 error (and 10 warning) annotations of a step; the rest are dropped. */
export const MAX_ANNOTATIONS = 10;
/** A step's job summary may not exceed 1 MiB. */
export const SUMMARY_LIMIT = 1024 * 1024;
const MAX_ANNOTATION_TEXT = 4000;

const Options = z.strictObject({
  summary: z.boolean().default(true).describe("append a Markdown job summary to $GITHUB_STEP_SUMMARY"),
  annotations: z.boolean().default(true).describe("::error for failed stories, ::warning for blocked ones"),
});

/** Workflow-command data: `%`, CR and LF are percent-encoded. */
export const escapeData = (text: string): string =>
  text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
/** Workflow-command property values: as data, plus `:` and `,`. */
export const escapeProperty = (text: string): string =>
  escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");

/**
 * In GitHub Actions (`GITHUB_ACTIONS=true`): at the end of the run, `::error` annotations for failed stories and
 * `::warning` for blocked ones on standard output, and the Markdown report appended to `$GITHUB_STEP_SUMMARY`.
 * Elsewhere it does nothing.
 */
export default function github(options: unknown, context: ReporterContext): Reporter {
  const opts = parseOptions(Options, options);
  if (context.env.GITHUB_ACTIONS !== "true") return {};
  const model = new RunModel();
  return {
    onEvent(...args) {
      model.apply(...args);
    },
    onRunEnd() {
      if (opts.annotations) for (const line of annotations(model)) context.stdout.write(`${line}\n`);
      const file = context.env.GITHUB_STEP_SUMMARY;
      if (opts.summary && file) {
        const used = existsSync(file) ? statSync(file).size : 0;
        const text = fitSummary(renderMarkdown(model, 2), SUMMARY_LIMIT - used);
        if (text) appendFileSync(file, text);
      }
    },
  };
}

export function annotations(model: RunModel): string[] {
  const stories = model.list();
  const errors = stories
    .filter((s) => s.status === "failed")
    .map((s) =>
      command("error", `${s.id} failed: ${oneLine(s.title)}`, `${s.title}\n${s.reason ?? "failed"}`),
    );
  if (model.error) errors.unshift(command("error", "gantry run error", model.error));
  const warnings = stories
    .filter((s) => s.status === "blocked")
    .map((s) => command("warning", `${s.id} blocked: ${oneLine(s.title)}`, s.reason ?? "blocked"));
  return [
    ...capped(errors, "error", stories, "failed", model.error ? 1 : 0),
    ...capped(warnings, "warning", stories, "blocked"),
  ];
}

function command(kind: "error" | "warning", title: string, message: string): string {
  return `::${kind} title=${escapeProperty(truncate(title, 200))}::${escapeData(truncate(message, MAX_ANNOTATION_TEXT))}`;
}

/** Past the limit the last one shown says how many more there are and where to look. */
function capped(
  lines: string[],
  kind: "error" | "warning",
  stories: StoryRecord[],
  status: string,
  leading = 0,
): string[] {
  if (lines.length <= MAX_ANNOTATIONS) return lines;
  const shown = lines.slice(0, MAX_ANNOTATIONS - 1);
  const rest = stories.filter((s) => s.status === status).slice(MAX_ANNOTATIONS - 1 - leading);
  const ids = truncate(rest.map((s) => s.id).join(", "), 1000);
  shown.push(
    command(
      kind,
      `${rest.length} more stories ${status}`,
      `${ids}\nGitHub shows ${MAX_ANNOTATIONS} ${kind} annotations per step; the job summary lists every story.`,
    ),
  );
  return shown;
}

/**
 * Joins the report's blocks within `budget` bytes (UTF-8). When they do not all fit, whole blocks are kept
 * as far as they go, then a note says the summary was cut; nothing is written when not even the note fits.
 */
export function fitSummary(blocks: string[], budget: number): string {
  const all = `${blocks.join("\n")}\n`;
  if (Buffer.byteLength(all) <= budget) return all;
  const note = (shown: number) =>
    `\n> [!WARNING]\n> Summary cut to fit GitHub's 1 MiB limit: ${shown} of ${blocks.length} sections shown. The markdown and html reporters write the whole report into the run directory.\n`;
  const room = budget - Buffer.byteLength(note(blocks.length));
  if (room <= 0) return "";
  let text = "";
  let shown = 0;
  for (const block of blocks) {
    const next = `${block}\n`;
    if (Buffer.byteLength(text) + Buffer.byteLength(next) > room) {
      if (shown === 0) text = cutBytes(next, room);
      break;
    }
    text += next;
    shown += 1;
  }
  return text + note(shown);
}

/** The longest prefix of `text` within `bytes` bytes of UTF-8, never splitting a character. */
function cutBytes(text: string, bytes: number): string {
  const buffer = Buffer.from(text).subarray(0, bytes);
  return buffer.toString("utf8").replace(/\uFFFD+$/, "");
}
