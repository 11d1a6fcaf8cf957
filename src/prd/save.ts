import { readFileSync } from "node:fs";
import type { StoryStatus } from "../pipeline/events.js";
import { writeJsonAtomic } from "../util/atomic-write.js";

export interface StoryPatch {
  status?: StoryStatus;
  attempts?: number;
  routing?: Record<string, unknown>;
  costUsd?: number;
  failureReason?: string | null;
}

/**
 * Writes one story's fields back to prd.json. The file is read again first, so a user's edit to any
 * other story or field made while the run goes on is kept; unknown fields survive; the write is atomic.
 */
export function saveStoryPatch(path: string, storyId: string, patch: StoryPatch): void {
  const doc = JSON.parse(readFileSync(path, "utf8")) as { userStories?: Record<string, unknown>[] };
  const story = doc.userStories?.find((s) => s.id === storyId);
  if (!story) return;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete story[key];
    else story[key] = value;
  }
  if (patch.status) story.passes = patch.status === "passed";
  writeJsonAtomic(path, doc);
}
