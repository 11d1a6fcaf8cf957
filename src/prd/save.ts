import { type BigIntStats, readFileSync, statSync } from "node:fs";
import type { StoryStatus } from "../model/story.js";
import { writeJsonAtomic } from "../util/atomic-write.js";

export interface StoryPatch {
  status?: StoryStatus;
  attempts?: number;
  routing?: Record<string, unknown>;
  costUsd?: number;
  failureReason?: string | null;
}

type PrdDocument = { userStories?: Record<string, unknown>[] };

/** prd.json as this process last wrote it, and which file that was (device, inode, size, mtime). */
export interface LastWrite {
  written?: { doc: PrdDocument; key: string };
}

/**
 * Writes one story's fields back to prd.json. The file is read again first, so a user's edit to any
 * other story or field made while the run goes on is kept; unknown fields survive; the write is atomic.
 * With `last`, the read is skipped while the file is still the one this process wrote last (any other
 * write replaces it or changes its size or mtime): a 500-story prd.json is no longer parsed at every update.
 */
export function saveStoryPatch(path: string, storyId: string, patch: StoryPatch, last?: LastWrite): void {
  const cached = last?.written;
  if (last) last.written = undefined;
  const doc =
    cached !== undefined && cached.key === fileKey(path)
      ? cached.doc
      : (JSON.parse(readFileSync(path, "utf8")) as PrdDocument);
  const story = doc.userStories?.find((s) => s.id === storyId);
  if (!story) return;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete story[key];
    else story[key] = value;
  }
  if (patch.status) story.passes = patch.status === "passed";
  const written = writeJsonAtomic(path, doc);
  if (last) last.written = { doc, key: keyOf(written) };
}

const keyOf = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}`;

function fileKey(path: string): string | undefined {
  try {
    return keyOf(statSync(path, { bigint: true }));
  } catch {
    return undefined;
  }
}
