import { z } from "zod";
import { ERROR_CODES } from "../model/errors.js";
import type { EventName } from "../model/events.js";
import { STORY_STATUSES } from "../model/story.js";
import type { HookEvent } from "./schema.js";

/**
 * What a hook command reads on standard input: the hook and bus event names, the run, the feature, and
 * the bus event's own fields, nothing more. schemas/hook-payload.schema.json is generated from this.
 */

/** The bus event each hook event answers to. */
export const HOOK_SOURCE_EVENTS = {
  "on-start": "run:start",
  "on-story-start": "story:start",
  "on-story-complete": "story:complete",
  "on-story-fail": "story:fail",
  "on-story-skip": "story:skip",
  "on-escalate": "escalation:tier-change",
  "on-pause": "run:pause",
  "on-resume": "run:resume",
  "on-complete": "run:complete",
  "on-error": "run:error",
} as const satisfies Record<HookEvent, EventName>;

const count = z.number().int().nonnegative();

const StorySummarySchema = z
  .strictObject({
    id: z.string(),
    title: z.string(),
    status: z.enum(STORY_STATUSES),
    attempts: count,
  })
  .describe("the story as it travels on the bus: never the whole PRD");

/** The fields every payload carries, with `hook` and `event` fixed to one pair. */
const base = <H extends HookEvent>(hook: H) => ({
  hook: z.literal(hook),
  event: z.literal(HOOK_SOURCE_EVENTS[hook]),
  runId: z.string(),
  feature: z.string(),
  at: z.string().describe("ISO 8601 time the bus event was emitted"),
});

const reason = z.string();

export const HookPayloadSchema = z
  .discriminatedUnion("hook", [
    z.strictObject({ ...base("on-start"), totalStories: count }),
    z.strictObject({ ...base("on-story-start"), story: StorySummarySchema, tier: z.string() }),
    z.strictObject({
      ...base("on-story-complete"),
      story: StorySummarySchema,
      metrics: z.strictObject({
        durationMs: z.number().nonnegative(),
        costUsd: z.number().nonnegative(),
        attempts: count,
        tier: z.string(),
        agentCalls: count,
      }),
      inWorktree: z
        .boolean()
        .optional()
        .describe("--parallel: it passed in its worktree and is merged into the feature branch next"),
    }),
    z.strictObject({ ...base("on-story-fail"), story: StorySummarySchema, reason }),
    z.strictObject({ ...base("on-story-skip"), story: StorySummarySchema, reason }),
    z.strictObject({
      ...base("on-escalate"),
      storyId: z.string(),
      from: z.string().describe("the tier the story leaves"),
      to: z.string().describe("the tier it is run again at"),
      reason,
    }),
    z.strictObject({ ...base("on-pause"), reason }),
    z.strictObject({ ...base("on-resume"), reason }),
    z.strictObject({
      ...base("on-complete"),
      summary: z.strictObject({
        passed: count,
        failed: count,
        skipped: count,
        blocked: count,
        paused: count,
        durationMs: z.number().nonnegative(),
        costUsd: z.number().nonnegative(),
        costBasis: z.enum(["exact", "partial", "estimated", "unknown"]),
      }),
      exitCode: z.number().int().describe("the exit code gantry run ends with"),
    }),
    z.strictObject({
      ...base("on-error"),
      error: z.strictObject({ message: z.string(), code: z.enum(ERROR_CODES) }),
    }),
  ])
  .describe("gantry hook payload: the JSON a hook command reads on standard input");

export type HookPayload = z.output<typeof HookPayloadSchema>;
export type HookPayloadOf<H extends HookEvent> = Extract<HookPayload, { hook: H }>;
