import { z } from "zod";
import { formatPath } from "../config/input-error.js";

/** Where an objection or a reply points; gantry resolves each (anchors.ts), the agent's word counts for nothing. */
export const AnchorSchema = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("file"),
    path: z.string().min(1).max(1_000),
    line: z.number().int().positive(),
    quote: z.string().min(1).max(2_000),
  }),
  z.strictObject({ kind: z.literal("story"), story: z.string().min(1).max(200) }),
  z.strictObject({ kind: z.literal("spec"), heading: z.string().min(1).max(500) }),
  z.strictObject({ kind: z.literal("inference"), reasoning: z.string().min(1).max(5_000) }),
]);
export type Anchor = z.output<typeof AnchorSchema>;

export const LENSES = ["scope", "feasibility", "security", "alternative"] as const;

export const ObjectionSchema = z.strictObject({
  id: z.string().regex(/^OBJ-\d{1,4}$/, "expected OBJ-1, OBJ-2, …"),
  lens: z.enum(LENSES),
  claim: z.string().min(1).max(5_000),
  anchors: z.array(AnchorSchema).min(1).max(20),
  rule: z.string().min(1).max(100).optional().describe("the id of the project rule the plan breaks"),
});
export type Objection = z.output<typeof ObjectionSchema>;

/** What the critic writes to the file gantry names: no objection at all is an answer too. */
export const CritiqueAnswerSchema = z
  .strictObject({ objections: z.array(ObjectionSchema).max(50) })
  .superRefine((answer, ctx) => {
    const seen = new Set<string>();
    answer.objections.forEach((o, i) => {
      if (seen.has(o.id))
        ctx.addIssue({ code: "custom", path: ["objections", i, "id"], message: `${o.id} is raised twice` });
      seen.add(o.id);
    });
  });
export type CritiqueAnswer = z.output<typeof CritiqueAnswerSchema>;

export const ReplySchema = z.strictObject({
  objection: z.string().min(1).max(100),
  reply: z.enum(["accept", "rebut"]),
  anchors: z.array(AnchorSchema).min(1).max(20),
  note: z.string().max(5_000).optional(),
});
export type Reply = z.output<typeof ReplySchema>;

/**
 * The planner's answer to the critique: one reply per objection, and, when it accepted any, its revised
 * stories (merged onto the proposed ones as a plan answer is: an answered id replaces that story, a new id
 * adds one). The count of replies per objection is the judge's to check, not the schema's.
 */
export const ReplyAnswerSchema = z.looseObject({
  replies: z.array(ReplySchema).max(100),
  userStories: z.array(z.unknown()).optional(),
});
export type ReplyAnswer = z.output<typeof ReplyAnswerSchema>;

/** Every issue of a zod failure, one line each: an answer gets all its errors at once. */
export function schemaErrors(file: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => `${file}: ${formatPath(issue.path)}: ${issue.message}`);
}
