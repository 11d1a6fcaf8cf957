import { type AnchorWorld, anchorProblem, describeAnchor } from "./anchors.js";
import type { Anchor, Objection, Reply } from "./critique-schema.js";
import type { Rule } from "./rules.js";

/** How one objection came out: it blocks the plan, was answered as a binding rule asks, or is advisory. */
export type ObjectionOutcome = "blocks" | "answered" | "advisory";

export interface JudgedObjection {
  objection: Objection;
  /** One line per anchor that does not resolve, against the proposed stories. */
  unresolved: string[];
  /** No anchor resolves: the objection is an inference, and never blocks. */
  inference: boolean;
  /** The cited rule's status, or `unknown` for an id the rules file does not hold. */
  rule?: { id: string; status: Rule["status"] | "unknown" };
  reply?: Reply;
  /** Why the reply does not answer a blocking objection (empty when it does, or nothing needed it). */
  replyProblems: string[];
  outcome: ObjectionOutcome;
}

export interface CritiqueJudgement {
  verdict: "pass" | "fail";
  /** Breaches of the exchange itself: an objection answered not once, a reply to no objection. */
  protocol: string[];
  objections: JudgedObjection[];
}

export interface JudgeInput {
  objections: readonly Objection[];
  replies: readonly Reply[];
  rules: readonly Rule[];
  /** The proposed stories, the repository and the spec: what the critic's anchors must resolve in. */
  proposed: AnchorWorld;
  /** The stories after the planner's revision: what the replies' anchors must resolve in. */
  revised: AnchorWorld;
  /** The stories the revision added or changed: an accept anchors one of these. */
  revisedStories: ReadonlySet<string>;
}

/**
 * The judge of `gantry plan`'s critique, in code: the protocol first (every objection answered exactly once,
 * no reply to an objection nobody raised), then each objection. One that cites a binding rule and has an
 * anchor that resolves blocks unless it was accepted with a story anchor naming a story the revision added
 * or changed, or rebutted with an anchor that resolves and is not an inference. Everything else is advisory.
 */
export function judgeCritique(input: JudgeInput): CritiqueJudgement {
  const raised = new Set(input.objections.map((o) => o.id));
  const protocol: string[] = [];
  const repliesTo = new Map<string, Reply[]>();
  input.replies.forEach((reply, i) => {
    if (!raised.has(reply.objection)) {
      protocol.push(`replies[${i}] answers ${reply.objection}, which the critic did not raise`);
      return;
    }
    repliesTo.set(reply.objection, [...(repliesTo.get(reply.objection) ?? []), reply]);
  });
  for (const objection of input.objections) {
    const count = repliesTo.get(objection.id)?.length ?? 0;
    if (count === 0) protocol.push(`${objection.id} has no reply`);
    else if (count > 1) protocol.push(`${objection.id} has ${count} replies; it is answered once`);
  }
  const rules = new Map(input.rules.map((r) => [r.id, r]));
  const objections = input.objections.map((objection) => {
    const replies = repliesTo.get(objection.id) ?? [];
    return judgeObjection(objection, replies.length === 1 ? replies[0] : undefined, rules, input);
  });
  const blocked = protocol.length > 0 || objections.some((o) => o.outcome === "blocks");
  return { verdict: blocked ? "fail" : "pass", protocol, objections };
}

function judgeObjection(
  objection: Objection,
  reply: Reply | undefined,
  rules: ReadonlyMap<string, Rule>,
  input: JudgeInput,
): JudgedObjection {
  const unresolved = problems(objection.anchors, input.proposed);
  const inference = unresolved.length === objection.anchors.length;
  const cited = objection.rule === undefined ? undefined : rules.get(objection.rule);
  const rule: JudgedObjection["rule"] =
    objection.rule === undefined ? undefined : { id: objection.rule, status: cited?.status ?? "unknown" };
  const base = { objection, unresolved, inference, ...(rule ? { rule } : {}), ...(reply ? { reply } : {}) };
  if (rule?.status !== "binding" || inference) return { ...base, replyProblems: [], outcome: "advisory" };
  const replyProblems = reply ? answerProblems(reply, input) : ["no single reply"];
  return { ...base, replyProblems, outcome: replyProblems.length === 0 ? "answered" : "blocks" };
}

function answerProblems(reply: Reply, input: JudgeInput): string[] {
  if (reply.reply === "accept") {
    const stories = reply.anchors.filter((a) => a.kind === "story");
    if (stories.some((a) => input.revisedStories.has(a.story))) return [];
    if (stories.length === 0)
      return ["accepted without a story anchor naming the story that now carries the fix"];
    return [
      `accepted, but no anchored story was added or changed by the revision (${stories.map((a) => a.story).join(", ")})`,
    ];
  }
  const grounded = reply.anchors.filter((a) => a.kind !== "inference");
  if (grounded.length === 0)
    return ["rebutted with inference only; a binding rule needs a file, story or spec anchor"];
  const unresolved = problems(grounded, input.revised);
  return unresolved.length === grounded.length ? unresolved : [];
}

function problems(anchors: readonly Anchor[], world: AnchorWorld): string[] {
  return anchors.flatMap((anchor) => {
    const problem = anchorProblem(anchor, world);
    if (problem === undefined) return [];
    // A file anchor's problem names its path and line already.
    return [anchor.kind === "file" ? problem : `${describeAnchor(anchor)}: ${problem}`];
  });
}
