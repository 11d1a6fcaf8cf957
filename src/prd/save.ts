import { type BigIntStats, readFileSync, statSync } from "node:fs";
import type { ReadinessRecord } from "../model/readiness.js";
import type { StoryStatus } from "../model/story.js";
import { writeJsonAtomic } from "../util/atomic-write.js";

export interface StoryPatch {
  status?: StoryStatus;
  attempts?: number;
  routing?: Record<string, unknown>;
  costUsd?: number;
  failureReason?: string | null;
  /** The readiness gate's record of this story (model/readiness.ts), kept across runs. */
  readiness?: ReadinessRecord | null;
}

type PrdDocument = { userStories?: Record<string, unknown>[] };

/** Sets a patch's fields on one story (null removes a field); `passes` follows `status`. */
export function applyPatch(story: Record<string, unknown>, patch: StoryPatch): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete story[key];
    else story[key] = value;
  }
  if (patch.status) story.passes = patch.status === "passed";
}

/**
 * Writes one story's fields back to prd.json outside a run (settling what a killed run left): the
 * file is read again first, unknown fields survive, the write is atomic. During a run the StoryStore
 * writes, from its own copy.
 */
export function saveStoryPatch(path: string, storyId: string, patch: StoryPatch): void {
  const doc = JSON.parse(readFileSync(path, "utf8")) as PrdDocument;
  const story = doc.userStories?.find((s) => s.id === storyId);
  if (!story) return;
  applyPatch(story, patch);
  writeJsonAtomic(path, doc);
}

/** Which file this is (device, inode, size, mtime): any other write replaces it or changes size or mtime. */
export const keyOf = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;

export function fileKey(path: string): string | undefined {
  try {
    return keyOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}
