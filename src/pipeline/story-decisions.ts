import type { InteractionAction } from "../config/schema.js";
import type { RunContext, StoryContext } from "../stages/context.js";
import type { Stage } from "../stages/stage.js";
import { findingKey } from "../verification/strategies/test-integrity/allowance.js";

/**
 * Where the story executor reads interaction answers (docs/interaction.md). Triggers are subscribers:
 * they ask when an event happens and record the answer through RunControl; the executor waits for them
 * with `bus.flush()` at its boundaries and acts on what was recorded. None of this runs when no trigger
 * is enabled, so the pipeline then behaves exactly as without interaction.
 */
export function interactive(run: RunContext): boolean {
  return Object.values(run.config.interaction.triggers).some((trigger) => trigger?.enabled === true);
}

/** Takes (removes) this story's answers for `trigger`; the last one counts. */
export function takeDecision(
  run: RunContext,
  storyId: string,
  trigger: string,
): InteractionAction | undefined {
  const mine = run.requests.decisions.filter((d) => d.storyId === storyId && d.trigger === trigger);
  run.requests.decisions = run.requests.decisions.filter((d) => !mine.includes(d));
  return mine.at(-1)?.action;
}

/** Forgets this story's answers that nobody acted on (one that came after its boundary had passed). */
export function dropDecisions(run: RunContext, storyId: string): void {
  run.requests.decisions = run.requests.decisions.filter((d) => d.storyId !== storyId);
}

/**
 * After a pass-ending event (`escalation:exhausted`, a MAX_STAGE_RETRIES fail): waits for the trigger's
 * answer and returns it. `retry` is honoured once per story and trigger; a second one counts as `approve`.
 */
export async function settle(
  run: RunContext,
  storyId: string,
  trigger: string,
  retried: Set<string>,
): Promise<InteractionAction | undefined> {
  if (!interactive(run)) return undefined;
  await run.bus.flush();
  const action = takeDecision(run, storyId, trigger);
  if (action !== "retry") return action;
  if (retried.has(trigger)) return "approve";
  retried.add(trigger);
  return "retry";
}

/**
 * The story stages with interaction boundaries: before each stage, a pause someone asked for (an
 * `abort` answer, the cost limit) stops the pass; after each, the answers to what the stage emitted
 * (`review:result`, `run:cost-check`) are awaited, and a `review-gate` skip ends the pass. A decision
 * can end a pass early; it never turns a failed check into a pass: completion still reads the ledger.
 */
export function withInteraction(stages: readonly Stage[], run: RunContext): readonly Stage[] {
  if (!interactive(run)) return stages;
  return stages.map((stage) => ({
    ...stage,
    async execute(ctx) {
      if (run.requests.pauseReason) return { action: "pause", reason: run.requests.pauseReason };
      let result = await stage.execute(ctx);
      await run.bus.flush();
      if (takeDecision(run, ctx.story.id, "review-gate") === "skip") {
        return { action: "skip", reason: "interaction review-gate answered skip" };
      }
      const integrity = takeDecision(run, ctx.story.id, "test-integrity");
      if (integrity === "skip") return { action: "skip", reason: "interaction test-integrity answered skip" };
      if (integrity === "approve" && allowLastIntegrityFindings(ctx)) {
        // Judged again with exactly those findings allowed, so the verdict in the ledger says who allowed what.
        ctx.failureHistory.pop();
        result = await stage.execute(ctx);
        await run.bus.flush();
      }
      return result;
    },
  }));
}

/** Adds the findings of the story's latest `test-integrity: fail` to what a person allowed; false if none. */
function allowLastIntegrityFindings(ctx: StoryContext): boolean {
  const last = ctx.integrity;
  const findings = last?.findings ?? [];
  if (last?.verdict !== "fail" || findings.length === 0) return false;
  ctx.integrityAllowed ??= new Set();
  for (const finding of findings) ctx.integrityAllowed.add(findingKey(finding));
  return true;
}
