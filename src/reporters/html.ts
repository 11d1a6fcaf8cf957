import { dirname, relative, resolve } from "node:path";
import { critiqueLines, type PlanCritiqueFile } from "../plan/critique-file.js";
import { duration, escapeMarkup, seconds, usd } from "./format.js";
import { FileOptions, parseOptions, writeReport } from "./options.js";
import { featureCritique } from "./plan-critique.js";
import { RunModel } from "./run-model.js";
import type { StageRecord, StoryRecord, VerdictRecord } from "./run-records.js";
import { stageOutcome } from "./stage-verdict.js";
import { passesThisRun } from "./story-fold.js";
import type { Reporter, ReporterContext } from "./types.js";
import { verdictSummary } from "./verdict-summary.js";

/**
 * `<runDir>/report.html` (or `outputFile`, relative to the run directory): one self-contained page, no scripts and
 * nothing fetched (a Content-Security-Policy forbids it): one row per story with its stage timeline and verdicts.
 */
export default function html(options: unknown, context: ReporterContext): Reporter {
  const { outputFile } = parseOptions(FileOptions("report.html"), options);
  const model = new RunModel();
  // Links to files in the run directory (agent output) are relative to where the report is.
  const runDirFromReport = relative(dirname(resolve(context.runDir, outputFile)), context.runDir);
  return {
    onEvent(...args) {
      model.apply(...args);
    },
    onRunEnd() {
      const critique = featureCritique(context.root, model.feature);
      writeReport(context.runDir, outputFile, renderHtml(model, context.now(), runDirFromReport, critique));
    },
  };
}

/** Markup built by the `h` tag; every interpolated value that is not itself Markup is escaped. */
class Markup {
  constructor(readonly text: string) {}
}
type Part = string | number | Markup | undefined | false | Part[];

function h(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0] ?? "";
  values.forEach((value, i) => {
    out += part(value) + (strings[i + 1] ?? "");
  });
  return new Markup(out);
}

function part(value: Part): string {
  if (value === undefined || value === false) return "";
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  return escapeMarkup(String(value));
}

export function renderHtml(
  model: RunModel,
  generatedAt = new Date(),
  runDirFromReport = "",
  critique?: PlanCritiqueFile,
): string {
  const c = model.counts();
  const time = model.durationMs();
  const cards = (["passed", "failed", "blocked", "skipped", "paused"] as const)
    .filter((k) => c[k] > 0 || k === "passed" || k === "failed")
    .map((k) => h`<li class="card ${k}"><b>${c[k]}</b> ${k}</li>`);
  const page = h`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gantry · ${model.feature} · ${model.runId}</title>
<style>${new Markup(CSS)}</style>
</head>
<body>
<header>
<h1>gantry: ${model.feature}</h1>
<p class="meta">run <code>${model.runId}</code>${model.startedAt ? h` · started ${model.startedAt.replace("T", " ").slice(0, 19)} UTC` : ""}${time !== undefined ? h` · ${duration(time)}` : ""}${model.exitCode !== undefined ? h` · exit code ${model.exitCode}` : ""}</p>
<ul class="cards">${cards}<li class="card"><b>${model.stories.size}/${model.totalStories}</b> stories</li><li class="card"><b>${usd(model.summary?.costUsd ?? model.costUsd)}</b> cost</li></ul>
</header>
${model.pauseReason ? h`<p class="banner paused">Paused: ${model.pauseReason}</p>` : ""}
${model.error ? h`<p class="banner failed">Error: ${model.error}</p>` : ""}
<main>
<table class="stories">
<thead><tr><th>Story</th><th>Status</th><th class="num">Passes</th><th>Tier</th><th class="num">Duration</th><th class="num">Cost</th><th>Stages</th><th>Gate verdicts</th></tr></thead>
<tbody>
${model.list().map((s) => storyRow(s, runDirFromReport))}
</tbody>
</table>
${model.runVerdicts.length > 0 ? h`<section class="post-run"><h2>Post-run checks</h2>${verdictList(model.runVerdicts)}</section>` : ""}
${critique ? h`<section class="plan-critique"><h2>Plan critique</h2><pre>${critiqueLines(critique).join("\n")}</pre></section>` : ""}
</main>
<footer>Written by gantry at ${generatedAt.toISOString()}.</footer>
</body>
</html>
`;
  return page.text;
}

function storyRow(s: StoryRecord, runDirFromReport: string): Markup {
  return h`<tr class="story ${s.status}" id="story-${s.id}">
<td><span class="id">${s.id}</span><div class="title">${s.title}</div>${s.reason && s.status !== "passed" ? h`<div class="reason">${s.reason}</div>` : ""}${sessionLinks(s, runDirFromReport)}</td>
<td><span class="badge ${s.status}">${s.status}</span></td>
<td class="num">${passesThisRun(s)}</td>
<td>${s.tier ?? "—"}</td>
<td class="num">${s.durationMs !== undefined ? duration(s.durationMs) : "—"}</td>
<td class="num">${s.agentCalls > 0 || s.costUsd > 0 ? usd(s.costUsd) : "—"}</td>
<td>${timeline(s.stages)}</td>
<td>${verdictList(s.verdicts)}</td>
</tr>
`;
}

/** One line of stage boxes per pass, each box as wide as its share of the pass's time. */
function timeline(stages: StageRecord[]): Markup {
  if (stages.length === 0) return h`<span class="none">no stages ran</span>`;
  const passes = new Map<number, StageRecord[]>();
  for (const s of stages) passes.set(s.pass, [...(passes.get(s.pass) ?? []), s]);
  return h`${[...passes].map(
    ([pass, list]) =>
      h`<div class="pass-row"><span class="pass-label">pass ${pass}${list[0]?.tier ? h` · ${list[0].tier}` : ""}</span>${passTimeline(list)}</div>`,
  )}`;
}

function passTimeline(stages: StageRecord[]): Markup {
  const total = stages.reduce((sum, s) => sum + s.durationMs, 0) || 1;
  return h`<ol class="timeline">${stages.map((s) => {
    const grow = Math.max(1, Math.round((s.durationMs / total) * 100));
    const outcome = stageOutcome(s);
    const what = `${s.stage} ${outcome} in ${seconds(s.durationMs)}${s.reason ? `: ${s.reason}` : ""}`;
    return h`<li class="seg ${s.verdict}" style="flex-grow:${grow}" title="${what}"><span class="stage">${s.stage}</span><span class="outcome">${outcome} · ${seconds(s.durationMs)}</span></li>`;
  })}</ol>`;
}

/** `agent output: implement · rectify`, each a link to what that session printed. */
function sessionLinks(s: StoryRecord, runDirFromReport: string): Markup | undefined {
  const kept = s.sessions.filter((session) => session.outputFile);
  if (kept.length === 0) return undefined;
  const href = (file: string) =>
    (runDirFromReport ? `${runDirFromReport}/${file}` : file).split("/").map(encodeURIComponent).join("/");
  return h`<div class="sessions">agent output: ${kept.map(
    (session, i) =>
      h`${i > 0 ? " · " : ""}<a href="${href(session.outputFile as string)}">${session.role}</a>`,
  )}</div>`;
}

function verdictList(verdicts: VerdictRecord[]): Markup {
  if (verdicts.length === 0) return h`<span class="none">no verdicts</span>`;
  return h`<ul class="verdicts">${verdicts.map(
    ({ entry, evidence }) =>
      h`<li class="verdict ${entry.verdict}"><span class="gate">${entry.gate}</span> <span class="v">${entry.verdict}</span> <span class="attempt">pass ${entry.attempt}</span><div class="detail">${verdictSummary(entry)}</div>${evidence.length > 0 ? h`<details><summary>${evidence.length} ${evidence.length === 1 ? "detail" : "details"}</summary><pre>${evidence.join("\n")}</pre></details>` : ""}</li>`,
  )}</ul>`;
}

const CSS = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mute:#6e7781;--line:#d0d7de;--bg:#f6f8fa;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328}
body{margin:0;padding:24px 32px}
h1{margin:0 0 4px;font-size:22px}
h2{font-size:17px;margin:24px 0 8px}
.meta{color:var(--mute);margin:0 0 12px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.cards{display:flex;gap:10px;list-style:none;padding:0;margin:0 0 16px;flex-wrap:wrap}
.card{border:1px solid var(--line);border-radius:6px;padding:6px 12px;background:var(--bg)}
.card b{font-size:18px;margin-right:4px}
.card.passed b{color:var(--ok)}.card.failed b{color:var(--bad)}.card.blocked b,.card.paused b{color:var(--warn)}
.banner{padding:8px 12px;border-radius:6px;border:1px solid var(--line)}
.banner.failed{background:#ffebe9;border-color:var(--bad)}.banner.paused{background:#fff8c5;border-color:var(--warn)}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:8px 10px;border-bottom:1px solid var(--line)}
th{background:var(--bg);font-weight:600;white-space:nowrap}
.num{text-align:right;white-space:nowrap}
.id{font-weight:600;font-family:ui-monospace,monospace}
.title{max-width:28em;overflow-wrap:anywhere}
.reason{color:var(--bad);font-size:12px;margin-top:4px;max-width:28em;overflow-wrap:anywhere}
.badge{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;font-weight:600;color:#fff;background:var(--mute)}
.badge.passed{background:var(--ok)}.badge.failed{background:var(--bad)}.badge.blocked,.badge.paused{background:var(--warn)}
.pass-row{margin-bottom:4px}
.pass-label{display:block;font-size:11px;color:var(--mute)}
.timeline{display:flex;flex-wrap:wrap;gap:2px;list-style:none;padding:0;margin:0;min-width:260px}
.seg{min-width:5.5em;padding:2px 6px;border-radius:3px;color:#fff;font-size:11px;line-height:1.3;background:var(--mute)}
.seg .stage{display:block;font-weight:600}
.seg.pass{background:var(--ok)}.seg.retry{background:var(--warn)}.seg.fail{background:var(--bad)}
.seg.paused{background:#0969da}
.verdicts{list-style:none;padding:0;margin:0;min-width:240px}
.verdict{border-left:4px solid var(--mute);padding:2px 8px;margin-bottom:4px;background:var(--bg)}
.verdict.pass{border-color:var(--ok)}.verdict.fail{border-color:var(--bad)}.verdict.unverified{border-color:var(--warn)}
.verdict .gate{font-weight:600}.verdict .attempt{color:var(--mute);font-size:12px}
.verdict.fail .v{color:var(--bad);font-weight:600}.verdict.pass .v{color:var(--ok)}
.detail{font-size:12px;color:var(--mute);overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:20em;overflow:auto;margin:4px 0}
.none{color:var(--mute)}
.sessions{font-size:12px;color:var(--mute);margin-top:4px}.sessions a{color:#0969da}
footer{margin-top:24px;color:var(--mute);font-size:12px}
`;
