import { z } from "zod";

/**
 * The `review` section: the model review panel. Each reviewer is an agent adapter (with a model) or a
 * shell command; every one runs blind to the others in role `review`, read-only on the tree
 * (docs/review.md). Empty (the default) is no panel.
 */
const reviewerName = z
  .string()
  .regex(/^[A-Za-z0-9][\w.-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64")
  .optional()
  .describe("how findings and prompts name this reviewer; default: the agent and model, or reviewer-<n>");

const AgentReviewer = z.strictObject({
  name: reviewerName,
  agent: z
    .string()
    .min(1)
    .describe("an agent adapter: claude, codex, gemini, aider, opencode, command, a plugin's"),
  model: z.string().min(1).optional().describe("default: the adapter's model for the story's tier"),
});

const CommandReviewer = z.strictObject({
  name: reviewerName,
  command: z
    .string()
    .min(1)
    .describe("run through /bin/sh -c with the prompt on stdin; prints the findings JSON"),
});

export const ReviewerSchema = z.union([AgentReviewer, CommandReviewer]);
export type ReviewerConfig = z.output<typeof ReviewerSchema>;

export const ReviewSchema = z
  .strictObject({
    panel: z
      .array(ReviewerSchema)
      .max(8)
      .default([])
      .describe(
        "model reviewers run in parallel, blind to each other; a blocker needs two of them or a failing test",
      ),
    timeoutSeconds: z
      .number()
      .positive()
      .max(86_400)
      .optional()
      .describe("per reviewer; default agent.timeoutSeconds"),
  })
  .prefault({});
