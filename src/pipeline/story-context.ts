import type { Story } from "../prd/story.js";
import type { ReviewResult, VerifyResult } from "./events.js";
import type { RunContext } from "./run-context.js";

/** One pass of one story through the stages, at one tier. */
export interface StoryContext {
  run: RunContext;
  story: Story;
  tier: string;
  /** 1-based pass number across tiers (the story's attempts). */
  pass: number;
  /** HEAD when the story started; its changes are measured from here. */
  baseSha: string;
  /** The latest failing test result rectify works from (scoped or regression), cleared when verify passes. */
  verify?: VerifyResult;
  review?: ReviewResult;
  /** failCount after each verify in this pass, for rectify's early stop. */
  failureHistory: number[];
  /** Retries this pass may still take before MAX_STAGE_RETRIES ends it; kept by the runner. */
  retriesLeft?: number;
  rectifyAttempts: number;
  autofixAttempts: number;
  /** Across passes. */
  agentCalls: number;
  costUsd: number;
}
