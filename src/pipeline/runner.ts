import type { EventBus } from "../bus/event-bus.js";
import type { StageResult } from "../model/stage.js";
import type { StoryContext } from "../stages/context.js";
import type { Stage } from "../stages/stage.js";

export interface RunnerOptions {
  bus: EventBus;
  /** MAX_STAGE_RETRIES: retries in one pass, counted together. */
  maxStageRetries: number;
  signal?: AbortSignal;
}

export type PassOutcome = Exclude<StageResult, { action: "retry" }> & { retries: number };

/**
 * Runs the stages in order for one pass over a story: `stage:enter` / `stage:exit` around each, a
 * thrown error becomes `fail`, `retry` jumps back to `fromStage`. Past `maxStageRetries` retries the
 * pass ends in `fail` with `retryLimit` (also on that `stage:exit`, so subscribers need not count).
 * Returns the final action: `continue` means every stage passed.
 */
export async function runStages(
  stages: readonly Stage[],
  ctx: StoryContext,
  options: RunnerOptions,
): Promise<PassOutcome> {
  const { bus, maxStageRetries } = options;
  const storyId = ctx.story.id;
  let retries = 0;
  let index = 0;
  // Ends: each turn advances, ends the pass, or spends one of at most maxStageRetries + 1 retries.
  while (index < stages.length) {
    if (options.signal?.aborted) return { action: "pause", reason: "interrupted", retries };
    const stage = stages[index] as Stage;
    if (!stage.enabled(ctx)) {
      index += 1;
      continue;
    }
    ctx.retriesLeft = maxStageRetries - retries;
    bus.emit("stage:enter", { storyId, stage: stage.name });
    const started = performance.now();
    let result: StageResult;
    try {
      result = await stage.execute(ctx);
    } catch (error) {
      result = {
        action: "fail",
        reason: `${stage.name} stage threw: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    const overLimit = result.action === "retry" && retries + 1 > maxStageRetries;
    const retryLimit = overLimit || (result.action === "fail" && result.retryLimit === true);
    const next =
      result.action === "continue" ? stages.slice(index + 1).find((s) => s.enabled(ctx)) : undefined;
    bus.emit("stage:exit", {
      storyId,
      stage: stage.name,
      result,
      durationMs: Math.round(performance.now() - started),
      ...(retryLimit ? { retryLimit: { max: maxStageRetries } } : {}),
      ...(next ? { next: next.name } : {}),
    });
    if (result.action === "continue") {
      index += 1;
      continue;
    }
    if (result.action !== "retry") return { ...result, retries };
    retries += 1;
    if (overLimit) {
      return {
        action: "fail",
        reason: `MAX_STAGE_RETRIES (${maxStageRetries}) exceeded; last: ${result.reason}`,
        retryLimit: true,
        retries,
      };
    }
    const target = stages.findIndex((s) => s.name === result.fromStage);
    if (target < 0)
      return {
        action: "fail",
        reason: `${stage.name} asked to retry from unknown stage "${result.fromStage}"`,
        retries,
      };
    index = target;
  }
  return { action: "continue", retries };
}
