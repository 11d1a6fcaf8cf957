import { z } from "zod";

/** The `interaction` section of the config: triggers, their answers and fallbacks, and the channels. */

const seconds = (fallback: number) => z.number().positive().max(86_400).default(fallback);

import { INTERACTION_ACTIONS, type InteractionAction } from "../model/interaction.js";

export { INTERACTION_ACTIONS, type InteractionAction };

/**
 * Each trigger with the actions it offers and its default fallback: the answer taken on timeout and
 * wherever nobody can answer. A configured fallback must be one of the trigger's actions.
 */
export const TRIGGERS = {
  "story-ambiguity": { actions: ["approve", "skip", "abort"], fallback: "skip" },
  "human-review": { actions: ["approve", "skip", "retry", "abort"], fallback: "skip" },
  "max-retries": { actions: ["approve", "skip", "retry", "abort"], fallback: "approve" },
  "review-gate": { actions: ["approve", "skip", "abort"], fallback: "approve" },
  "cost-warning": { actions: ["approve"], fallback: "approve" },
  // An agent session changed what judges its work: approve = the story fails as gantry decided (the
  // changes were put back), retry = one more pass, abort = stop the run here.
  tamper: { actions: ["approve", "retry", "abort"], fallback: "approve" },
  // The story changed its tests in a way the gate flags: approve = a person allows exactly these findings,
  // retry = leave them to rectify (what gantry does unasked), skip, abort. Approve is never a fallback.
  "test-integrity": { actions: ["approve", "retry", "skip", "abort"], fallback: "retry" },
  // A story the readiness gate parked: fix = it stays parked until its text changes, continue = run it with
  // the open gaps accepted, skip, abort = park it and stop the run.
  "story-readiness": { actions: ["fix", "continue", "skip", "abort"], fallback: "fix" },
  // The agent ended with STORY BLOCKED: approve = the story fails with the agent's reason, retry = one more
  // pass at the same tier, skip, abort = stop the run.
  "agent-blocked": { actions: ["approve", "retry", "skip", "abort"], fallback: "approve" },
  // The app the last story left does not build, smoke or start: retry = one autofix session to fix it,
  // abort = stop the run here (also what happens when nobody answers).
  "story-check": { actions: ["retry", "abort"], fallback: "abort" },
  // `--parallel`: a story's worktree did not merge, or the merged tree failed its gates: retry = run the
  // story once more on the feature branch's new tip, skip = leave it (its work set aside), abort = stop.
  "merge-conflict": { actions: ["retry", "skip", "abort"], fallback: "retry" },
  // Spending more always takes an answer: `approve` (offered only with raiseUsd) is never a fallback.
  "cost-exceeded": { actions: ["abort", "approve"], fallback: "abort" },
} as const satisfies Record<string, { actions: readonly InteractionAction[]; fallback: InteractionAction }>;
export type TriggerName = keyof typeof TRIGGERS;
export const TRIGGER_NAMES = Object.keys(TRIGGERS) as TriggerName[];
export const DEFAULT_TRIGGER_TIMEOUT_SECONDS = 300;

const trigger = <const A extends readonly [InteractionAction, ...InteractionAction[]]>(fallbacks: A) =>
  z.strictObject({
    enabled: z.boolean().default(true),
    fallback: z.enum(fallbacks).optional(),
    timeoutSeconds: z
      .number()
      .positive()
      .max(86_400)
      .optional()
      .describe(`how long to wait for an answer; default ${DEFAULT_TRIGGER_TIMEOUT_SECONDS}`),
  });

export const InteractionSchema = z
  .strictObject({
    channel: z.enum(["auto", "cli", "file", "webhook", "serve"]).default("auto"),
    triggers: z
      .strictObject({
        "story-ambiguity": trigger(["approve", "skip", "abort"]).optional(),
        "human-review": trigger(["approve", "skip", "retry", "abort"]).optional(),
        "max-retries": trigger(["approve", "skip", "retry", "abort"]).optional(),
        "review-gate": trigger(["approve", "skip", "abort"]).optional(),
        "cost-warning": trigger(["approve"]).optional(),
        tamper: trigger(["approve", "retry", "abort"]).optional(),
        "test-integrity": trigger(["retry", "skip", "abort"]).optional(),
        "story-readiness": trigger(["fix", "continue", "skip", "abort"]).optional(),
        "agent-blocked": trigger(["approve", "retry", "skip", "abort"]).optional(),
        "story-check": trigger(["retry", "abort"]).optional(),
        "merge-conflict": trigger(["retry", "skip", "abort"]).optional(),
        "cost-exceeded": trigger(["abort"])
          .extend({
            raiseUsd: z
              .number()
              .positive()
              .optional()
              .describe("offer `approve`: raise this run's cost limit by this many dollars"),
          })
          .optional(),
      })
      .prefault({}),
    file: z
      .strictObject({
        pollMs: z.number().int().min(10).max(60_000).default(500),
      })
      .prefault({}),
    webhook: z
      .strictObject({
        url: z.url({ protocol: /^https?$/ }),
        secretEnv: z.string().min(1).describe("the environment variable holding the HMAC-SHA256 secret"),
        callbackPort: z
          .number()
          .int()
          .min(0)
          .max(65_535)
          .optional()
          .describe("listen on 127.0.0.1 for signed answers to {pending: true}; 0 picks a free port"),
        timeoutSeconds: seconds(10).describe("for the POST itself"),
      })
      .optional(),
  })
  .refine((value) => value.channel !== "webhook" || value.webhook !== undefined, {
    message: 'channel "webhook" needs interaction.webhook {url, secretEnv}',
    path: ["webhook"],
  })
  .prefault({});
