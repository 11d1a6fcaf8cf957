import { z } from "zod";
import { STORY_STATUSES, type StoryStatus, type StorySummary } from "../model/story.js";

/** Story ids become file names and branch parts; only this shape is accepted. */
export const STORY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;

export const COMPLEXITIES = ["simple", "medium", "complex", "expert"] as const;
export type Complexity = (typeof COMPLEXITIES)[number];

export const RoutingSchema = z
  .looseObject({
    complexity: z
      .enum(COMPLEXITIES)
      .optional()
      .describe(
        "how hard the story is; set by you, it decides the starting tier (routing.complexityTier) instead of gantry's keyword guess",
      ),
    testStrategy: z
      .string()
      .optional()
      .describe("how the story is to be tested (default test-after); recorded with the routing decision"),
    tier: z
      .string()
      .optional()
      .describe("written by gantry: the tier the last pass ran at; not read as a hint"),
    reason: z.string().optional().describe("written by gantry: why this complexity was chosen"),
    /** "prd" when the PRD's author set the complexity, "gantry" when gantry's heuristics did. */
    decidedBy: z
      .string()
      .optional()
      .describe(
        'written by gantry: "prd" when the complexity came from this file, "gantry" when gantry guessed it (then a later run guesses afresh)',
      ),
  })
  .describe(
    "routing hints: complexity picks the model tier a story starts at; gantry records its decision here",
  );

/** One user story as nax and Ralph write it; fields gantry does not know are kept. */
export const StorySchema = z
  .looseObject({
    id: z
      .string()
      .regex(STORY_ID_PATTERN, "expected an id of letters, digits, '.', '_' or '-' (at most 80)")
      .describe(
        "unique in the file: letters, digits, '.', '_' or '-', at most 80; names the story in commits, logs and the ledger",
      ),
    title: z.string().min(1).max(500).describe("one line; heads the agent's prompt and the commit subject"),
    description: z
      .string()
      .max(100_000)
      .default("")
      .describe("what to build and why, given to the agent in full (cut last when the prompt is too long)"),
    acceptanceCriteria: z
      .array(z.string().max(10_000))
      .max(200)
      .default([])
      .describe(
        "what must be true when the story is done, one statement each; given to the agent and never cut from its prompt",
      ),
    dependencies: z
      .array(z.string())
      .max(200)
      .default([])
      .describe(
        "ids of stories in this file that must pass first; a story whose dependency failed is blocked, a cycle is an error",
      ),
    priority: z
      .union([z.number(), z.string()])
      .optional()
      .describe(
        "among stories whose dependencies are met, a lower number runs first; a string is kept but not ranked",
      ),
    tags: z.array(z.string()).optional().describe("free labels, kept as written; gantry does not read them"),
    routing: RoutingSchema.optional(),
    status: z
      .enum(STORY_STATUSES)
      .optional()
      .describe(
        "written by gantry as the story moves; a passed story is never run again (set pending to redo it)",
      ),
    passes: z
      .boolean()
      .optional()
      .describe("kept in step with status (true only when passed), for tools that read only this flag"),
    attempts: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("written by gantry: the passes the story has had"),
    failureReason: z
      .string()
      .nullable()
      .optional()
      .describe("written by gantry: why the story failed, was blocked or skipped; null once it passes"),
    costUsd: z
      .number()
      .optional()
      .describe("written by gantry: what the agent sessions of the story's last run cost, in USD"),
  })
  .describe("one user story");

export const PrdSchema = z
  .looseObject({
    $schema: z.string().optional().describe("the JSON Schema editors check the file with; ignored by gantry"),
    feature: z
      .string()
      .min(1)
      .optional()
      .describe("the feature's name (nax); the directory under .gantry/features/ is what gantry goes by"),
    project: z
      .string()
      .min(1)
      .optional()
      .describe("the project's name (Ralph writes this instead of feature)"),
    branchName: z
      .string()
      .optional()
      .describe("kept as written; gantry commits to the branch that is checked out"),
    userStories: z
      .array(StorySchema)
      .min(1, "expected at least one story")
      .max(5000)
      .describe("the stories, in file order; run in dependency order, then priority, then file order"),
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
