import { z } from "zod";

/**
 * What a panel reviewer answers: its findings as one JSON object. schemas/review-answer.schema.json is
 * generated from this, and every answer is validated against that file; an answer that does not fit is
 * no answer at all (a missing record fails the review-decision gate).
 */
export const FINDING_SEVERITIES = ["blocking", "important", "suggestion"] as const;

const ReviewerTestSchema = z
  .strictObject({
    file: z
      .string()
      .min(1)
      .max(300)
      .describe("the test file, relative to the project root; with `content`, a file gantry adds to run it"),
    name: z.string().min(1).max(500).optional().describe("the test in that file that shows the problem"),
    content: z
      .string()
      .max(20_000)
      .optional()
      .describe("a small test file to add, when it does not exist yet"),
  })
  .describe("a test that demonstrates the problem: gantry runs it on the story's tree and at its base");

export const ReviewFindingSchema = z.strictObject({
  file: z.string().min(1).max(1000).describe("the file the finding is about, relative to the project root"),
  line: z.number().int().min(0).describe("1-based; 0 = the whole file"),
  severity: z.enum(FINDING_SEVERITIES),
  ruleId: z.string().min(1).max(200).optional().describe("a stable name of the rule or problem class"),
  text: z.string().min(1).max(4000),
  test: ReviewerTestSchema.optional(),
});

export const ReviewAnswerSchema = z
  .strictObject({
    findings: z.array(ReviewFindingSchema).max(200),
    summary: z.string().max(4000).optional(),
  })
  .describe("a panel reviewer's answer (docs/review.md)");

export type ReviewAnswer = z.output<typeof ReviewAnswerSchema>;
