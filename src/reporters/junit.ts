import { oneLine, truncate } from "../util/text.js";
import { seconds, verdictSummary, escapeMarkup as x } from "./format.js";
import { FileOptions, parseOptions, writeReport } from "./options.js";
import { RunModel, type StoryRecord, type VerdictRecord } from "./run-model.js";
import type { Reporter, ReporterContext } from "./types.js";

const MAX_MESSAGE = 1000;

interface Case {
  name: string;
  time: number;
  /** Absent for a pass. */
  outcome?: { kind: "failure" | "skipped" | "error"; message: string; type?: string; text?: string };
}

/**
 * `<runDir>/junit.xml` (or `outputFile`, relative to the run directory): one testsuite per story, one testcase per
 * gate verdict plus an `outcome` testcase for how the story ended, in the Jenkins / Surefire JUnit format.
 */
export default function junit(options: unknown, context: ReporterContext): Reporter {
  const { outputFile } = parseOptions(FileOptions("junit.xml"), options);
  const model = new RunModel();
  return {
    onEvent(...args) {
      model.apply(...args);
    },
    onRunEnd() {
      writeReport(context.runDir, outputFile, renderJunit(model));
    },
  };
}

export function renderJunit(model: RunModel): string {
  const suites = model.list().map((story) => suite(`${story.id}: ${oneLine(story.title)}`, story, model));
  if (model.runVerdicts.length > 0) suites.push(suite("post-run checks", undefined, model));
  if (model.error) {
    suites.push(
      render("run", `gantry.${model.feature}`, model.startedAt, [
        { name: "run", time: 0, outcome: { kind: "error", message: model.error, type: "run-error" } },
      ]),
    );
  }
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: (model.durationMs() ?? 0) / 1000 };
  for (const s of suites) {
    totals.tests += s.tests;
    totals.failures += s.failures;
    totals.errors += s.errors;
    totals.skipped += s.skipped;
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(`gantry ${model.feature}`)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${totals.time.toFixed(3)}">`,
    ...suites.map((s) => s.xml),
    "</testsuites>",
    "",
  ].join("\n");
}

function suite(name: string, story: StoryRecord | undefined, model: RunModel) {
  const classname = `gantry.${model.feature}.${story?.id ?? "run"}`;
  const cases = verdictCases(story ? story.verdicts : model.runVerdicts);
  if (story) cases.push(outcomeCase(story));
  const timeline = story?.stages.flatMap((s, i, all) => [
    ...(s.pass !== all[i - 1]?.pass ? [`pass ${s.pass}${s.tier ? ` (tier ${s.tier})` : ""}:`] : []),
    `  ${s.stage} → ${s.action}${s.fromStage ? ` from ${s.fromStage}` : ""} (${seconds(s.durationMs)})`,
  ]);
  const properties = story && {
    status: story.status,
    attempts: String(story.attempts),
    ...(story.tier ? { tier: story.tier } : {}),
    costUsd: story.costUsd.toFixed(4),
  };
  return render(name, classname, story?.startedAt ?? model.startedAt, cases, properties, timeline);
}

function verdictCases(verdicts: VerdictRecord[]): Case[] {
  const seen = new Map<string, number>();
  return verdicts.map(({ entry, durationMs, evidence }) => {
    const base = `${entry.gate} (pass ${entry.attempt})`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const name = n === 1 ? base : `${base} #${n}`;
    const message = `${entry.verdict}: ${verdictSummary(entry)}`;
    const text = evidence.join("\n");
    const time = (durationMs ?? 0) / 1000;
    switch (entry.verdict) {
      case "pass":
        return { name, time };
      case "not-applicable":
        return { name, time, outcome: { kind: "skipped", message } };
      default:
        return { name, time, outcome: { kind: "failure", message, type: entry.verdict, text } };
    }
  });
}

function outcomeCase(story: StoryRecord): Case {
  const time = (story.durationMs ?? 0) / 1000;
  const reason = story.reason ?? story.status;
  if (story.status === "passed") return { name: "outcome", time };
  if (story.status === "failed")
    return {
      name: "outcome",
      time,
      outcome: { kind: "failure", message: reason, type: "story-failed", text: reason },
    };
  const message = reason.startsWith(story.status) ? reason : `${story.status}: ${reason}`;
  return { name: "outcome", time, outcome: { kind: "skipped", message } };
}

function render(
  name: string,
  classname: string,
  at: string | undefined,
  cases: Case[],
  properties?: Record<string, string>,
  out?: string[],
) {
  const count = (kind: string) => cases.filter((c) => c.outcome?.kind === kind).length;
  const counts = {
    tests: cases.length,
    failures: count("failure"),
    errors: count("error"),
    skipped: count("skipped"),
  };
  const time = cases.reduce((sum, c) => sum + c.time, 0);
  // JUnit consumers expect a timestamp without a zone; gantry's are UTC.
  const stamp = at ? ` timestamp="${at.slice(0, 19)}"` : "";
  const lines = [
    `  <testsuite name="${x(name)}" tests="${counts.tests}" failures="${counts.failures}" errors="${counts.errors}" skipped="${counts.skipped}" time="${time.toFixed(3)}"${stamp}>`,
  ];
  if (properties) {
    lines.push("    <properties>");
    for (const [key, value] of Object.entries(properties))
      lines.push(`      <property name="${x(key)}" value="${x(value)}"/>`);
    lines.push("    </properties>");
  }
  for (const c of cases) {
    const head = `    <testcase name="${x(c.name)}" classname="${x(classname)}" time="${c.time.toFixed(3)}"`;
    const o = c.outcome;
    if (!o) {
      lines.push(`${head}/>`);
      continue;
    }
    const message = ` message="${x(truncate(oneLine(o.message), MAX_MESSAGE))}"`;
    const type = o.type ? ` type="${x(o.type)}"` : "";
    const body = o.text ? `>${x(o.text)}</${o.kind}>` : "/>";
    lines.push(`${head}>`, `      <${o.kind}${message}${type}${body}`, "    </testcase>");
  }
  if (out && out.length > 0) lines.push(`    <system-out>${x(out.join("\n"))}</system-out>`);
  lines.push("  </testsuite>");
  return { ...counts, xml: lines.join("\n") };
}
