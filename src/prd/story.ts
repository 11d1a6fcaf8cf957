import { z } from "zod";
import { STORY_STATUSES, type StoryStatus, type StorySummary } from "../model/story.js";

/** Story ids become file names and branch parts; only this shape is accepted. */
export const STORY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

export const COMPLEXITIES = ["simple", "medium", "complex", "expert"] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

const RoutingSchema = z.looseObject({
  complexity: z.enum(COMPLEXITIES).optional(),
  testStrategy: z.string().optional(),
  tier: z.string().optional(),
  reason: z.string().optional(),
  /** "prd" when the PRD's author set the complexity, "gantry" when gantry's heuristics did. */
  decidedBy: z.string().optional(),
});

/** One user story as nax and Ralph write it; fields gantry does not know are kept. */
export const StorySchema = z.looseObject({
  id: z.string().regex(STORY_ID_PATTERN, "expected an id of letters, digits, '.', '_' or '-' (at most 80)"),
  title: z.string().min(1).max(500),
  description: z.string().max(100_000).default(""),
  acceptanceCriteria: z.array(z.string().max(10_000)).max(200).default([]),
  dependencies: z.array(z.string()).max(200).default([]),
  priority: z.union([z.number(), z.string()]).optional(),
  tags: z.array(z.string()).optional(),
  routing: RoutingSchema.optional(),
  status: z.enum(STORY_STATUSES).optional(),
  passes: z.boolean().optional(),
  attempts: z.number().int().nonnegative().optional(),
});

export const PrdSchema = z
  .looseObject({
    feature: z.string().min(1).optional(),
    project: z.string().min(1).optional(),
    branchName: z.string().optional(),
    userStories: z.array(StorySchema).min(1, "expected at least one story").max(5000),
  })
  .describe("gantry / nax / Ralph PRD (prd.json)");

export type Story = z.output<typeof StorySchema>;
export type Prd = z.output<typeof PrdSchema>;

/** Ralph files carry only `passes`; nax files carry both. */
export function statusOf(story: Story): StoryStatus {
  return story.status ?? (story.passes ? "passed" : "pending");
}

export function summarize(story: Story): StorySummary {
  return { id: story.id, title: story.title, status: statusOf(story), attempts: story.attempts ?? 0 };
}
