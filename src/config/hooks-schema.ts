import { z } from "zod";

/** The events a hook can be given (config `hooks`), in the order a run can reach them. */
export const HOOK_EVENTS = [
  "on-start",
  "on-story-start",
  "on-story-complete",
  "on-story-fail",
  "on-story-skip",
  "on-escalate",
  "on-pause",
  "on-resume",
  "on-complete",
  "on-error",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

const hookCommand = z.union([
  z.string().min(1),
  z.strictObject({
    command: z.string().min(1),
    timeoutMs: z.number().int().positive().max(3_600_000).optional(),
    enabled: z.boolean().optional(),
  }),
]);

export const HooksSchema = z
  .partialRecord(z.enum(HOOK_EVENTS), z.union([hookCommand, z.array(hookCommand)]))
  .default({});
