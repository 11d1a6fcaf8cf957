import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { EXIT } from "../model/exit-codes.js";
import type { Verdict } from "../model/ledger.js";
import { critiqueLines, critiqueRecord, type PlanCritiqueFile } from "../plan/critique-file.js";
import { describeChanges, type PlanMerge } from "../prd/plan-merge.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import type { CritiqueOutcome } from "./plan-critic.js";
import type { PlanSessions } from "./plan-session.js";

type ValidPlan = Extract<PlanMerge, { ok: true }>;

/** What the outcome of a plan needs of the command's options. */
export interface PlanOutput {
  feature: string;
  prdPath: string;
  display: string;
  dryRun: boolean;
  out: (line: string) => void;
  warn: (line: string) => void;
}

/** Acts on the critique: a block (or a critic that gave no critique) leaves prd.json as it was, exit 1. */
export async function judged(
  sessions: PlanSessions,
  options: PlanOutput,
  proposed: ValidPlan,
  outcome: CritiqueOutcome,
): Promise<number> {
  if (outcome.kind === "aborted") return EXIT.interrupted;
  if (outcome.kind === "failed") {
    for (const reason of outcome.reasons) options.warn(`gantry: ${reason}`);
    await verdict(sessions, options, "unverified", { reasons: outcome.reasons });
    options.warn(`gantry: the plan was not critiqued; ${options.display} is unchanged`);
    return EXIT.failed;
  }
  const doc = critiqueRecord(
    { feature: options.feature, planId: sessions.runId, at: new Date().toISOString() },
    outcome.judgement,
  );
  if (outcome.judgement.verdict === "fail") {
    for (const line of critiqueLines(doc)) options.warn(line);
    await verdict(sessions, options, "fail", critiqueDetail(doc));
    options.warn(`gantry: the critique blocks this plan; ${options.display} is unchanged`);
    return EXIT.failed;
  }
  const revised =
    outcome.revised.length > 0 ? outcome.plan.changes.filter((c) => outcome.revised.includes(c.id)) : [];
  const after = describeChanges(revised).map((line) => `after the critique: ${line}`);
  const plan = { ...outcome.plan, changes: proposed.changes };
  return finish(sessions, options, plan, after, doc);
}

/** Writes the plan (or, with --dry-run, prints it), its critique beside it and the ledger line. */
export async function finish(
  sessions: PlanSessions,
  options: PlanOutput,
  merge: ValidPlan,
  revisedLines: string[],
  critique: PlanCritiqueFile | undefined,
): Promise<number> {
  const lines = [...describeChanges(merge.changes), ...revisedLines];
  const shown =
    critique && !critique.skipped && critique.objections.length > 0 ? critiqueLines(critique) : [];
  if (options.dryRun) {
    for (const story of merge.prd.userStories) {
      options.out(`${story.id}  ${story.title}`);
      for (const criterion of story.acceptanceCriteria) options.out(`    - ${criterion}`);
    }
    for (const line of shown) options.out(line);
    options.out(`would write ${options.display}: ${lines.join("; ")}`);
    return EXIT.ok;
  }
  mkdirSync(dirname(options.prdPath), { recursive: true });
  writeJsonAtomic(options.prdPath, merge.doc);
  if (critique) {
    sessions.record.critique(critique);
    const detail = critique.skipped ? { skipped: critique.skipped } : critiqueDetail(critique);
    await verdict(sessions, options, critique.skipped ? "not-applicable" : "pass", detail);
  }
  for (const line of lines) options.out(line);
  for (const line of shown) options.out(line);
  options.out(
    `wrote ${options.display} (${merge.prd.userStories.length} stories); next: gantry run --feature ${options.feature}`,
  );
  return EXIT.ok;
}

async function verdict(
  sessions: PlanSessions,
  options: PlanOutput,
  value: Verdict,
  detail: Record<string, unknown>,
): Promise<void> {
  if (options.dryRun) return;
  sessions.record.verdict({
    runId: sessions.runId,
    feature: options.feature,
    verdict: value,
    judged: await sessions.git.judge(),
    detail,
  });
}

function critiqueDetail(doc: PlanCritiqueFile): Record<string, unknown> {
  const count = (outcome: string) => doc.objections.filter((o) => o.outcome === outcome).length;
  return {
    objections: doc.objections.length,
    blocks: count("blocks"),
    answered: count("answered"),
    advisory: count("advisory"),
    ...(doc.protocol.length > 0 ? { protocol: doc.protocol } : {}),
  };
}

export function skippedRecord(sessions: PlanSessions, skipped: string): PlanCritiqueFile {
  return {
    v: 1,
    feature: sessions.feature,
    planId: sessions.runId,
    at: new Date().toISOString(),
    verdict: "not-applicable",
    skipped,
    protocol: [],
    objections: [],
  };
}
