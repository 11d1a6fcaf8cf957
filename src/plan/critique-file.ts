import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describeAnchor } from "./anchors.js";
import type { CritiqueJudgement, JudgedObjection } from "./judge.js";

/** The critique of the plan prd.json holds, beside it: `.gantry/features/<F>/plan-critique.json`. */
export const CRITIQUE_FILE = "plan-critique.json";

const ObjectionRecord = z.looseObject({
  id: z.string(),
  lens: z.string(),
  claim: z.string(),
  rule: z.string().optional(),
  ruleStatus: z.string().optional(),
  anchors: z.array(z.string()),
  unresolved: z.array(z.string()),
  outcome: z.enum(["blocks", "answered", "advisory"]),
  reply: z
    .looseObject({ reply: z.string(), anchors: z.array(z.string()), note: z.string().optional() })
    .optional(),
  replyProblems: z.array(z.string()),
});

export const PlanCritiqueFileSchema = z.looseObject({
  v: z.literal(1),
  feature: z.string(),
  planId: z.string(),
  at: z.string(),
  verdict: z.enum(["pass", "fail", "not-applicable"]),
  /** Why no critic ran: `--no-critic`, or `plan.critic` off. */
  skipped: z.string().optional(),
  protocol: z.array(z.string()),
  objections: z.array(ObjectionRecord),
});
export type PlanCritiqueFile = z.output<typeof PlanCritiqueFileSchema>;
export type ObjectionRecord = z.output<typeof ObjectionRecord>;

/** The file's record of a judged critique: anchors as a person reads them, every reason kept. */
export function critiqueRecord(
  meta: { feature: string; planId: string; at: string },
  judgement: CritiqueJudgement,
): PlanCritiqueFile {
  return {
    v: 1,
    ...meta,
    verdict: judgement.verdict,
    protocol: judgement.protocol,
    objections: judgement.objections.map(objectionRecord),
  };
}

function objectionRecord(judged: JudgedObjection): ObjectionRecord {
  const { objection, reply } = judged;
  return {
    id: objection.id,
    lens: objection.lens,
    claim: objection.claim,
    ...(judged.rule ? { rule: judged.rule.id, ruleStatus: judged.rule.status } : {}),
    anchors: objection.anchors.map(describeAnchor),
    unresolved: judged.unresolved,
    outcome: judged.outcome,
    ...(reply
      ? {
          reply: {
            reply: reply.reply,
            anchors: reply.anchors.map(describeAnchor),
            ...(reply.note ? { note: reply.note } : {}),
          },
        }
      : {}),
    replyProblems: judged.replyProblems,
  };
}

/** One line per objection and its reply, for the terminal and the markdown report. */
export function critiqueLines(doc: PlanCritiqueFile): string[] {
  if (doc.skipped) return [`plan-critique: not run (${doc.skipped})`];
  const lines = [
    `plan-critique: ${doc.verdict}, ${doc.objections.length} objection(s)`,
    ...doc.protocol.map((p) => `  protocol: ${p}`),
  ];
  for (const o of doc.objections) {
    const rule = o.rule ? ` ${o.rule} (${o.ruleStatus})` : "";
    lines.push(`  ${o.id} [${o.lens}]${rule} ${o.outcome}: ${o.claim}`);
    lines.push(`    anchors: ${o.anchors.join(", ")}`);
    for (const u of o.unresolved) lines.push(`    not found: ${u}`);
    if (o.reply) {
      const note = o.reply.note ? ` — ${o.reply.note}` : "";
      lines.push(`    reply: ${o.reply.reply} (${o.reply.anchors.join(", ")})${note}`);
    } else lines.push("    reply: none");
    for (const p of o.replyProblems) lines.push(`    ${p}`);
  }
  return lines;
}

/** A feature's plan-critique.json, or undefined when there is none or it is not one (it is only shown). */
export function readPlanCritique(featureDir: string): PlanCritiqueFile | undefined {
  const path = join(featureDir, CRITIQUE_FILE);
  if (!existsSync(path)) return undefined;
  try {
    const parsed = PlanCritiqueFileSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
