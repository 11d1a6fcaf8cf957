export const STORY_STATUSES = [
  "pending",
  "in-progress",
  "passed",
  "failed",
  "skipped",
  "blocked",
  "paused",
] as const;
export type StoryStatus = (typeof STORY_STATUSES)[number];

/** How a story travels on the bus: never the whole PRD. */
export interface StorySummary {
  id: string;
  title: string;
  status: StoryStatus;
  attempts: number;
}
