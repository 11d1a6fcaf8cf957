import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentAdapter } from "../agents/adapter.js";
import { buildCriticPrompt } from "../agents/critic-prompt.js";
import { buildPlanReplyPrompt } from "../agents/plan-reply-prompt.js";
import { type AnchorWorld, specHeadings } from "../plan/anchors.js";
import {
  type CritiqueAnswer,
  CritiqueAnswerSchema,
  type ReplyAnswer,
  ReplyAnswerSchema,
  schemaErrors,
} from "../plan/critique-schema.js";
import { type CritiqueJudgement, judgeCritique } from "../plan/judge.js";
import type { Rule } from "../plan/rules.js";
import { mergePlan, type PlanMerge } from "../prd/plan-merge.js";
import type { TreeReader } from "../prd/research-findings.js";
import { type PlanSessions, planSession, type SessionOutcome } from "./plan-session.js";

type ValidPlan = Extract<PlanMerge, { ok: true }>;

export interface CritiqueInput {
  sessions: PlanSessions;
  planner: { agent: AgentAdapter; tier: string };
  critic: { agent: AgentAdapter; tier: string };
  spec: string;
  rules: readonly Rule[];
  /** The valid plan the planner proposed. */
  proposed: ValidPlan;
  /** How prd.json is named in messages. */
  display: string;
}

export type CritiqueOutcome =
  | { kind: "aborted" }
  /** The critic session failed or its answer is not a critique: nothing was judged. */
  | { kind: "failed"; reasons: string[] }
  | { kind: "judged"; judgement: CritiqueJudgement; plan: ValidPlan; revised: string[] };

/**
 * One round: the critic objects (role `critic`), the planner replies to every objection once (role `plan`,
 * revising the stories for what it accepts), and judgeCritique decides. No objection, no reply session.
 */
export async function critiquePlan(input: CritiqueInput): Promise<CritiqueOutcome> {
  const { sessions, proposed } = input;
  const critic = await ask(input, input.critic, "critic", (outputFile) =>
    buildCriticPrompt({
      feature: sessions.feature,
      spec: input.spec,
      stories: proposed.doc.userStories ?? [],
      rules: input.rules,
      outputFile,
    }),
  );
  if (critic.kind === "aborted") return critic;
  if (critic.kind === "failed") return { kind: "failed", reasons: [critic.reason] };
  if (critic.kind === "unreadable") return { kind: "failed", reasons: [`the critic's ${critic.reason}`] };
  const critique = CritiqueAnswerSchema.safeParse(critic.answer);
  if (!critique.success)
    return { kind: "failed", reasons: schemaErrors("the critic's answer", critique.error) };
  const tree = treeReader(sessions.root, await sessions.git.trackedFiles());
  const headings = specHeadings(input.spec);
  const proposedWorld: AnchorWorld = { tree, headings, stories: storyIds(proposed) };
  const judge = (replies: ReplyAnswer["replies"], plan: ValidPlan, revised: string[], protocol: string[]) => {
    const judgement = judgeCritique({
      objections: critique.data.objections,
      replies,
      rules: input.rules,
      proposed: proposedWorld,
      revised: { tree, headings, stories: storyIds(plan) },
      revisedStories: new Set(revised),
    });
    const withProtocol = { ...judgement, protocol: [...protocol, ...judgement.protocol] };
    const verdict = withProtocol.protocol.length > 0 ? "fail" : judgement.verdict;
    return { kind: "judged" as const, judgement: { ...withProtocol, verdict }, plan, revised };
  };
  if (critique.data.objections.length === 0) return judge([], proposed, [], []);
  const reply = await askReply(input, critique.data);
  if (reply.kind === "aborted" || reply.kind === "failed") return reply;
  if (reply.kind === "invalid") return judge([], proposed, [], reply.errors);
  const revision = revise(input, reply.answer);
  if (!revision.ok) return judge(reply.answer.replies, proposed, [], revision.errors);
  return judge(reply.answer.replies, revision.plan, revision.revised, []);
}

/** One session of the round: the critic's (role `critic`) or the planner's reply (role `plan`). */
function ask(
  input: CritiqueInput,
  who: CritiqueInput["critic"],
  name: "critic" | "reply",
  prompt: (outputFile: string) => string,
): Promise<SessionOutcome> {
  const outputFile = join(input.sessions.scratch, `${name}.json`);
  const role = name === "critic" ? "critic" : "plan";
  return planSession(input.sessions, {
    ...who,
    role,
    name,
    attempt: 1,
    prompt: prompt(outputFile),
    outputFile,
  });
}

type ReplyOutcome =
  | { kind: "aborted" }
  | { kind: "failed"; reasons: string[] }
  | { kind: "invalid"; errors: string[] }
  | { kind: "answered"; answer: ReplyAnswer };

async function askReply(input: CritiqueInput, critique: CritiqueAnswer): Promise<ReplyOutcome> {
  const outcome = await ask(input, input.planner, "reply", (outputFile) =>
    buildPlanReplyPrompt({
      feature: input.sessions.feature,
      spec: input.spec,
      stories: input.proposed.doc.userStories ?? [],
      rules: input.rules,
      objections: critique.objections,
      outputFile,
    }),
  );
  if (outcome.kind === "aborted") return outcome;
  if (outcome.kind === "failed") return { kind: "failed", reasons: [outcome.reason] };
  if (outcome.kind === "unreadable")
    return { kind: "invalid", errors: [`the planner's reply: ${outcome.reason}`] };
  const parsed = ReplyAnswerSchema.safeParse(outcome.answer);
  if (!parsed.success) return { kind: "invalid", errors: schemaErrors("the planner's reply", parsed.error) };
  return { kind: "answered", answer: parsed.data };
}

/** The reply's stories merged onto the proposed ones and checked as a plan is; the ids it added or changed. */
function revise(
  input: CritiqueInput,
  answer: ReplyAnswer,
): { ok: true; plan: ValidPlan; revised: string[] } | { ok: false; errors: string[] } {
  if (!answer.userStories?.length) return { ok: true, plan: input.proposed, revised: [] };
  const merge = mergePlan(
    input.proposed.doc,
    { userStories: answer.userStories },
    input.sessions.feature,
    input.display,
  );
  if (!merge.ok) return { ok: false, errors: merge.errors.map((e) => `the revised stories: ${e}`) };
  const revised = merge.changes
    .filter((c) => c.change === "added" || c.change === "refined")
    .map((c) => c.id);
  return { ok: true, plan: merge, revised };
}

function storyIds(plan: ValidPlan): Set<string> {
  return new Set(plan.prd.userStories.map((s) => s.id));
}

function treeReader(root: string, tracked: ReadonlySet<string>): TreeReader {
  return {
    tracked,
    read: (path) => {
      try {
        return readFileSync(join(root, path), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}
