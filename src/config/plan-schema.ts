import { z } from "zod";

/** The `plan` section: `gantry plan`'s critic (docs/planning.md, "The critic"). */
export const PlanSchema = z
  .strictObject({
    critic: z
      .enum(["on", "off"])
      .optional()
      .describe("one critic session before prd.json is written; default on when .gantry/rules.md exists"),
    criticAgent: z
      .string()
      .min(1)
      .optional()
      .describe("the adapter the critic runs on (claude, codex, command, a plugin's); default agent.default"),
    criticTier: z
      .string()
      .min(1)
      .optional()
      .describe("the tier whose model the critic runs (one of routing.tiers); default the top tier"),
  })
  .prefault({});
