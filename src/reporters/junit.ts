import { PASSING } from "../ledger/gate-rule.js";
import { oneLine, truncate } from "../util/text.js";
import { seconds, escapeMarkup as x } from "./format.js";
import { FileOptions, parseOptions, writeReport } from "./options.js";
import { RunModel } from "./run-model.js";
import type { StoryRecord, VerdictRecord } from "./run-records.js";
import { stageOutcome } from "./stage-verdict.js";
import type { Reporter, ReporterContext } from "./types.js";
import { verdictSummary } from "./verdict-summary.js";

const MAX_MESSAGE = 1000;

type ProblemKind = "failure" | "skipped" | "error";

/** An earlier failing run of a test: `rerunFailure` when the test still failed in the end, `flakyFailure` when it passed. */
interface Rerun {
  kind: "rerunFailure" | "flakyFailure";
  message: string;
  type: string;
  text: string;
}

interface Case {
  name: string;
  time: number;
  /** Absent for a pass. */
  outcome?: { kind: ProblemKind; message: string; type?: string; text?: string };
  reruns?: Rerun[];
  /** The testcase's `<system-out>`. */
  out?: string;
}

/**
 * `<runDir>/junit.xml` (or `outputFile`, relative to the run directory): one testsuite per story, one testcase per
 * gate plus an `outcome` testcase for how the story ended, in the Jenkins / Surefire JUnit format. A gate judged
 * more than once (rectify, a new tier) follows Surefire's rerun convention: in a story that passed, its failed
 * verdicts are `<flakyFailure>`s (no `<failure>`: the story is done); in one that did not, the latest failure is
 * the `<failure>` and the earlier ones `<rerunFailure>`s.
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
      render("run", `gantry.${model.feature}`, [
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
  const cases = gateCases(story ? story.verdicts : model.runVerdicts, story?.status === "passed");
  if (story) {
    // The story's stage timeline goes with how it ended: Surefire has no <system-out> for a whole suite.
    const timeline = story.stages.flatMap((s, i, all) => [
      ...(s.pass !== all[i - 1]?.pass ? [`pass ${s.pass}${s.tier ? ` (tier ${s.tier})` : ""}:`] : []),
      `  ${s.stage} ${stageOutcome(s)} (${seconds(s.durationMs)})`,
    ]);
    cases.push({ ...outcomeCase(story), ...(timeline.length > 0 ? { out: timeline.join("\n") } : {}) });
  }
  const startedAt = story?.startedAt ?? model.startedAt;
  const properties = {
    ...(story && {
      status: story.status,
      attempts: String(story.attempts),
      ...(story.tier ? { tier: story.tier } : {}),
      costUsd: story.costUsd.toFixed(4),
    }),
    // JUnit readers take times without a zone; gantry's are UTC.
    ...(startedAt ? { startedAt: startedAt.slice(0, 19) } : {}),
  };
  return render(name, classname, cases, properties);
}

/** One testcase per gate, in the order the gates were first judged; its verdicts are its runs. */
function gateCases(verdicts: VerdictRecord[], storyPassed: boolean): Case[] {
  const byGate = new Map<string, VerdictRecord[]>();
  for (const v of verdicts) byGate.set(v.entry.gate, [...(byGate.get(v.entry.gate) ?? []), v]);
  return [...byGate].map(([gate, runs]) => {
    const last = runs.at(-1) as VerdictRecord;
    const time = runs.reduce((sum, r) => sum + (r.durationMs ?? 0), 0) / 1000;
    const failed = runs.filter((r) => !PASSING.has(r.entry.verdict));
    const name = gate;
    const stillFailing = !storyPassed && !PASSING.has(last.entry.verdict);
    const reruns = (stillFailing ? failed.slice(0, -1) : failed).map(
      (r): Rerun => ({
        kind: stillFailing ? "rerunFailure" : "flakyFailure",
        message: problemMessage(r),
        type: r.entry.verdict,
        text: r.evidence.join("\n"),
      }),
    );
    const withReruns = reruns.length > 0 ? { reruns } : {};
    if (stillFailing) {
      const outcome = {
        kind: "failure" as const,
        message: problemMessage(last),
        type: last.entry.verdict,
        text: last.evidence.join("\n"),
      };
      return { name, time, outcome, ...withReruns };
    }
    if (failed.length === 0 && last.entry.verdict === "not-applicable")
      return { name, time, outcome: { kind: "skipped", message: problemMessage(last) } };
    return { name, time, ...withReruns };
  });
}

/** `fail (pass 2): TEST_FAILURE · node-test: 4 passed, 2 failed`. */
function problemMessage({ entry }: VerdictRecord): string {
  const summary = verdictSummary(entry);
  return `${entry.verdict} (pass ${entry.attempt})${summary ? `: ${summary}` : ""}`;
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

/**
 * One `<testsuite>` as Surefire's report schema (3.0) has it — no timestamp attribute and no suite-level output;
 * the start time is a property — inside the `<testsuites>` Jenkins and GitLab read.
 */
function render(name: string, classname: string, cases: Case[], properties: Record<string, string> = {}) {
  const count = (kind: string) => cases.filter((c) => c.outcome?.kind === kind).length;
  const counts = {
    tests: cases.length,
    failures: count("failure"),
    errors: count("error"),
    skipped: count("skipped"),
  };
  const time = cases.reduce((sum, c) => sum + c.time, 0);
  const lines = [
    `  <testsuite name="${x(name)}" tests="${counts.tests}" failures="${counts.failures}" errors="${counts.errors}" skipped="${counts.skipped}" time="${time.toFixed(3)}">`,
  ];
  if (Object.keys(properties).length > 0) {
    lines.push("    <properties>");
    for (const [key, value] of Object.entries(properties))
      lines.push(`      <property name="${x(key)}" value="${x(value)}"/>`);
    lines.push("    </properties>");
  }
  const message = (text: string) => ` message="${x(truncate(oneLine(text), MAX_MESSAGE))}"`;
  for (const c of cases) {
    const head = `    <testcase name="${x(c.name)}" classname="${x(classname)}" time="${c.time.toFixed(3)}"`;
    const o = c.outcome;
    const reruns = c.reruns ?? [];
    if (!o && reruns.length === 0 && c.out === undefined) {
      lines.push(`${head}/>`);
      continue;
    }
    lines.push(`${head}>`);
    // Surefire's order: failure, then its reruns (rerunFailure, flakyFailure), then skipped, then error.
    if (o?.kind === "failure") lines.push(problem(o, message));
    for (const r of reruns)
      lines.push(
        `      <${r.kind}${message(r.message)} type="${x(r.type)}"><stackTrace>${x(r.text)}</stackTrace></${r.kind}>`,
      );
    if (o && o.kind !== "failure") lines.push(problem(o, message));
    if (c.out !== undefined) lines.push(`      <system-out>${x(c.out)}</system-out>`);
    lines.push("    </testcase>");
  }
  lines.push("  </testsuite>");
  return { ...counts, xml: lines.join("\n") };
}

function problem(o: NonNullable<Case["outcome"]>, message: (text: string) => string): string {
  const type = o.type ? ` type="${x(o.type)}"` : "";
  const body = o.text ? `>${x(o.text)}</${o.kind}>` : "/>";
  return `      <${o.kind}${message(o.message)}${type}${body}`;
}
