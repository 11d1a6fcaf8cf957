import { buildPrompt, type PromptInput } from "../agents/prompt.js";
import { EMPTY_TREE, JudgeRefusal, UNBORN } from "../git/judge.js";
import type { AgentRole } from "../model/agent.js";
import type { Judged } from "../model/ledger.js";
import type { StageResult } from "../model/stage.js";
import { runAgentSession } from "./agent-session.js";
import type { StoryContext } from "./context.js";
import { guardSession } from "./session-guard.js";

/**
 * One agent session for a stage: the prompt for the role (with the story's dependencies and the size
 * bound), then the session. Returns the stage's result when the session did not finish (pause on an
 * interruption or the cost cap, escalate on an agent error), undefined when it did.
 */
export async function agentStep(
  ctx: StoryContext,
  role: AgentRole,
  extra: Pick<PromptInput, "failures" | "rawOutputTail" | "findings" | "verdict" | "reviewNotes"> = {},
): Promise<StageResult | undefined> {
  const { run, story } = ctx;
  const prompt = buildPrompt({
    role,
    story,
    feature: run.feature,
    dependencies: story.dependencies.map((id) => ({
      id,
      title: run.stories.get(id)?.title ?? "(not in this PRD)",
      status: run.stories.status(id) ?? "unknown",
    })),
    maxChars: run.config.agent.maxPromptChars,
    resumed: ctx.resumedPass === ctx.pass,
    ...extra,
  });
  const guard = await guardSession(ctx, role);
  const outcome = await runAgentSession(ctx, role, prompt);
  const tampered = await guard.finish();
  if (tampered) return tampered;
  if (outcome.kind === "paused") return { action: "pause", reason: outcome.reason };
  if (outcome.kind === "error") return { action: "escalate", reason: outcome.reason };
  ctx.marker = outcome.marker;
  const { marker, reason } = outcome.marker;
  if (marker === "STORY BLOCKED") {
    // A higher tier would not unblock a missing decision: the pass ends here, without escalating.
    const why = reason ?? "(no reason given)";
    return { action: "fail", reason: `the agent reported STORY BLOCKED: ${why}`, agentBlocked: why };
  }
  return undefined;
}

/**
 * No work since the story began: HEAD is still its base and the judged tree is its tree (.gantry/ aside).
 * Derived from the tree the judge built, not from another look at the disk. A tree the judge refuses is
 * a change: the stage that records a verdict on it says why.
 */
export async function changedNothing(ctx: StoryContext, judgedNow?: Judged): Promise<boolean> {
  const { git } = ctx.run;
  let judged: Judged;
  try {
    judged = judgedNow ?? (await git.judge());
  } catch (error) {
    if (error instanceof JudgeRefusal) return false;
    throw error;
  }
  if (judged.sha !== ctx.baseSha) return false;
  if (judged.sha === UNBORN) return judged.tree === EMPTY_TREE;
  return git.sameContent(judged.sha, judged.tree);
}

/**
 * Before an agent session that only pays off through a retry (rectify, autofix): when the pass has no
 * retry left, end it now instead of spending a session whose work nothing would verify.
 */
export function noRetryLeft(ctx: StoryContext, stage: string): StageResult | undefined {
  if (ctx.retriesLeft === undefined || ctx.retriesLeft > 0) return undefined;
  const max = ctx.run.config.execution.maxStageRetries;
  return {
    action: "fail",
    retryLimit: true,
    reason: `MAX_STAGE_RETRIES (${max}) exceeded: no retry left to verify a ${stage} session, so none was started`,
  };
}
