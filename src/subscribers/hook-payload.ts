import { HOOK_SOURCE_EVENTS, type HookPayload, type HookPayloadOf } from "../config/hook-payload.js";
import type { HookEvent } from "../config/schema.js";
import type { EventOf } from "../model/events.js";
import type { StorySummary } from "../model/story.js";

type SourceEvent<H extends HookEvent> = EventOf<(typeof HOOK_SOURCE_EVENTS)[H]>;
/** A payload's own fields, besides hook, event, runId, feature and at. */
type Fields<H extends HookEvent> = Omit<HookPayloadOf<H>, "hook" | "event" | "runId" | "feature" | "at">;

const story = (s: StorySummary): StorySummary => ({
  id: s.id,
  title: s.title,
  status: s.status,
  attempts: s.attempts,
});

// Each builder names its return type, so a field the schema does not have is a compile error.
const FIELDS: { [H in HookEvent]: (event: SourceEvent<H>) => Fields<H> } = {
  "on-start": (e): Fields<"on-start"> => ({ totalStories: e.totalStories }),
  "on-story-start": (e): Fields<"on-story-start"> => ({ story: story(e.story), tier: e.tier }),
  "on-story-complete": ({ story: s, metrics: m }): Fields<"on-story-complete"> => ({
    story: story(s),
    metrics: {
      durationMs: m.durationMs,
      costUsd: m.costUsd,
      attempts: m.attempts,
      tier: m.tier,
      agentCalls: m.agentCalls,
    },
  }),
  "on-story-fail": (e): Fields<"on-story-fail"> => ({ story: story(e.story), reason: e.reason }),
  "on-story-skip": (e): Fields<"on-story-skip"> => ({ story: story(e.story), reason: e.reason }),
  "on-escalate": (e): Fields<"on-escalate"> => ({
    storyId: e.storyId,
    from: e.from,
    to: e.to,
    reason: e.reason,
  }),
  "on-pause": (e): Fields<"on-pause"> => ({ reason: e.reason }),
  "on-resume": (e): Fields<"on-resume"> => ({ reason: e.reason }),
  "on-complete": ({ summary: s, exitCode }): Fields<"on-complete"> => ({
    summary: {
      passed: s.passed,
      failed: s.failed,
      skipped: s.skipped,
      blocked: s.blocked,
      paused: s.paused,
      durationMs: s.durationMs,
      costUsd: s.costUsd,
      costBasis: s.costBasis,
    },
    exitCode,
  }),
  "on-error": (e): Fields<"on-error"> => ({ error: { message: e.error.message, code: e.error.code } }),
};

/**
 * The payload a hook reads on standard input. Every field is picked by name, so whatever else an event
 * object may carry at run time never reaches a hook.
 */
export function buildHookPayload<H extends HookEvent>(
  hook: H,
  event: SourceEvent<H>,
  feature: string,
): HookPayloadOf<H> {
  const fields = (FIELDS[hook] as (event: SourceEvent<H>) => Fields<H>)(event);
  const head = { hook, event: HOOK_SOURCE_EVENTS[hook], runId: event.runId, feature, at: event.at };
  return { ...head, ...fields } as unknown as HookPayloadOf<H>;
}

/** The variables a hook gets on top of gantry's own environment; stale inherited ones are dropped. */
export const HOOK_ENV_NAMES = [
  "GANTRY_HOOK",
  "GANTRY_EVENT",
  "GANTRY_RUN_ID",
  "GANTRY_FEATURE",
  "GANTRY_STORY_ID",
  "GANTRY_STORY_TITLE",
  "GANTRY_STORY_STATUS",
  "GANTRY_REASON",
] as const;

/**
 * The environment a hook runs in: gantry's own (hooks are the user's commands, like notify-send), with
 * the GANTRY_* variables of this payload. Inherited GANTRY_* names of the list are removed first, so a
 * gantry started from inside an agent session does not hand its parent's story id to an `on-start` hook.
 */
export function hookEnvironment(payload: HookPayload, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of HOOK_ENV_NAMES) delete env[name];
  const set = (name: (typeof HOOK_ENV_NAMES)[number], value: string | undefined) => {
    // A NUL byte cannot travel in an environment variable (spawn would refuse it); the JSON keeps it.
    if (value !== undefined) env[name] = value.replaceAll("\0", "");
  };
  set("GANTRY_HOOK", payload.hook);
  set("GANTRY_EVENT", payload.event);
  set("GANTRY_RUN_ID", payload.runId);
  set("GANTRY_FEATURE", payload.feature);
  if ("story" in payload) {
    set("GANTRY_STORY_ID", payload.story.id);
    set("GANTRY_STORY_TITLE", payload.story.title);
    set("GANTRY_STORY_STATUS", payload.story.status);
  }
  if ("storyId" in payload) set("GANTRY_STORY_ID", payload.storyId);
  if ("reason" in payload) set("GANTRY_REASON", payload.reason);
  if ("error" in payload) set("GANTRY_REASON", payload.error.message);
  return env;
}
