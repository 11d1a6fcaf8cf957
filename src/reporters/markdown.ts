import type { Verdict } from "../model/ledger.js";
import type { PlanCritiqueFile } from "../plan/critique-file.js";
import { oneLine, truncate } from "../util/text.js";
import { markdownCell as cell, duration, usd } from "./format.js";
import { FileOptions, parseOptions, writeReport } from "./options.js";
import { critiqueMarkdown, featureCritique } from "./plan-critique.js";
import { RunModel } from "./run-model.js";
import type { StoryRecord, VerdictRecord } from "./run-records.js";
import { passesThisRun } from "./story-fold.js";
import type { Reporter, ReporterContext } from "./types.js";
import { verdictSummary } from "./verdict-summary.js";

export const STATUS_MARK: Record<string, string> = {
  passed: "✅",
  failed: "❌",
  blocked: "⛔",
  skipped: "⏭️",
  paused: "⏸️",
  "in-progress": "▶️",
  pending: "⏳",
};
const VERDICT_MARK: Record<Verdict, string> = {
  pass: "✅",
  fail: "❌",
  unverified: "⚠️",
  "not-applicable": "➖",
};
const MAX_EVIDENCE_SHOWN = 5;

/** `<runDir>/report.md` (or `outputFile`, relative to the run directory): summary, stories, gate verdicts. */
export default function markdown(options: unknown, context: ReporterContext): Reporter {
  const { outputFile } = parseOptions(FileOptions("report.md"), options);
  const model = new RunModel();
  return {
    onEvent(...args) {
      model.apply(...args);
    },
    onRunEnd() {
      const critique = featureCritique(context.root, model.feature);
      writeReport(context.runDir, outputFile, renderMarkdown(model, 1, critique).join("\n"));
    },
  };
}

/** The report as a list of blocks (so the github reporter can cut it at a block boundary). */
export function renderMarkdown(model: RunModel, level = 1, critique?: PlanCritiqueFile): string[] {
  const h = (n: number) => "#".repeat(level + n - 1);
  const c = model.counts();
  const parts = (["passed", "failed", "blocked", "skipped", "paused"] as const)
    .filter((k) => c[k] > 0)
    .map((k) => `${c[k]} ${k}`);
  const time = model.durationMs();
  const facts = [
    `**${parts.join(" · ") || "no stories ran"}**`,
    `${model.stories.size} of ${model.totalStories} stories`,
    ...(time !== undefined ? [duration(time)] : []),
    usd(model.summary?.costUsd ?? model.costUsd),
    ...(model.exitCode !== undefined ? [`exit code ${model.exitCode}`] : []),
  ];
  const blocks = [
    `${h(1)} gantry: ${cell(model.feature)}\n\nRun \`${model.runId}\` · ${facts.join(" · ")}\n`,
  ];
  if (model.pauseReason) blocks.push(`> **Paused:** ${cell(model.pauseReason)}\n`);
  if (model.error) blocks.push(`> **Error:** ${cell(model.error)}\n`);
  blocks.push(
    [
      "| | story | title | status | passes | tier | duration | cost |",
      "|---|---|---|---|--:|---|--:|--:|",
      ...model.list().map(storyRow),
      "",
    ].join("\n"),
  );
  const problems = model.list().filter((s) => s.reason && s.status !== "passed");
  if (problems.length > 0) {
    blocks.push(
      `${h(2)} Why stories did not pass\n\n${problems.map((s) => `- **${cell(s.id)}** (${s.status}): ${cell(s.reason ?? "")}`).join("\n")}\n`,
    );
  }
  blocks.push(`${h(2)} Gate verdicts\n`);
  for (const story of model.list()) {
    blocks.push(verdictTable(`${h(3)} ${cell(story.id)} — ${cell(story.title)}`, story.verdicts));
  }
  if (model.runVerdicts.length > 0) blocks.push(verdictTable(`${h(3)} Post-run checks`, model.runVerdicts));
  if (critique) blocks.push(critiqueMarkdown(critique, `${h(2)} Plan critique`));
  return blocks;
}

function storyRow(s: StoryRecord): string {
  const time = s.durationMs !== undefined ? duration(s.durationMs) : "—";
  const cost = s.agentCalls > 0 || s.costUsd > 0 ? usd(s.costUsd) : "—";
  return `| ${STATUS_MARK[s.status] ?? ""} | ${cell(s.id)} | ${cell(s.title)} | ${s.status} | ${passesThisRun(s)} | ${cell(s.tier ?? "—")} | ${time} | ${cost} |`;
}

function verdictTable(heading: string, verdicts: VerdictRecord[]): string {
  if (verdicts.length === 0) return `${heading}\n\nNo gate verdicts.\n`;
  const rows = verdicts.map(({ entry, evidence }) => {
    const shown = evidence.slice(0, MAX_EVIDENCE_SHOWN).map((l) => cell(truncate(oneLine(l), 300)));
    if (evidence.length > MAX_EVIDENCE_SHOWN) shown.push(`… ${evidence.length - MAX_EVIDENCE_SHOWN} more`);
    const detail = [cell(verdictSummary(entry)), ...shown].filter(Boolean).join("<br>");
    return `| ${cell(entry.gate)} | ${entry.attempt} | ${VERDICT_MARK[entry.verdict]} ${entry.verdict} | ${detail} |`;
  });
  return `${heading}\n\n| gate | pass # | verdict | detail |\n|---|--:|---|---|\n${rows.join("\n")}\n`;
}
