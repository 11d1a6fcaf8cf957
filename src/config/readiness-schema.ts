import { z } from "zod";
import { READINESS_GAP_CODES } from "../model/readiness.js";

/** The `readiness` section: the gate that scores a story before its first agent session (docs/planning.md). */
export const ReadinessSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    blockers: z
      .array(z.enum(READINESS_GAP_CODES))
      .optional()
      .describe("gap codes that park a story; default no-acceptance-criteria, unknown-dependency"),
    research: z
      .boolean()
      .optional()
      .describe(
        "one read-only research session before asking; default on when nobody can be asked (interaction.channel auto)",
      ),
    maxResearchRounds: z
      .number()
      .int()
      .min(0)
      .max(10)
      .default(1)
      .describe("research sessions a story may get, counted across runs"),
    maxCriteria: z.number().int().min(1).max(200).default(12).describe("more is too-large"),
    maxFiles: z.number().int().min(1).max(1000).default(20).describe("more files named is too-large"),
  })
  .prefault({});
