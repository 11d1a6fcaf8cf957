import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { StoryView } from "./view-types.js";

export type PrdStory = { id: string; title: string; status?: string; passes?: boolean };
/** Each prd.json as last parsed, by path, with the identity of the file it came from and when it was looked at. */
const prdCache = new Map<string, { stamp: string; stories: PrdStory[]; checkedAt: number }>();

/**
 * How long a prd.json looked at is taken as it was: a live run's view is made again at every change (tens
 * a second under load), and a stat per view was a fifth of making it; the queued stories it lists change
 * only when someone edits the file, and the page shows that edit at most this much later.
 */
const PRD_RECHECK_MS = 250;

/** The stories of a prd.json, parsed again only when the file changed (a view is made at every change of a run). */
function prdStories(path: string): PrdStory[] {
  const now = Date.now();
  const cached = prdCache.get(path);
  if (cached && now - cached.checkedAt < PRD_RECHECK_MS) return cached.stories;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) {
    prdCache.delete(path);
    return [];
  }
  const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  if (cached?.stamp === stamp) {
    cached.checkedAt = now;
    return cached.stories;
  }
  const stories = JSON.parse(readFileSync(path, "utf8")).userStories as PrdStory[];
  prdCache.set(path, { stamp, stories, checkedAt: now });
  return stories;
}

/**
 * The feature's stories the run has not reached yet, from its prd.json, each as `as` makes it: queuedView,
 * or queuedJson (tolerant: a torn file lists none).
 */
export function queuedStories<T>(
  root: string,
  feature: string,
  seen: { has(id: string): boolean },
  as: (story: PrdStory) => T,
): T[] {
  try {
    return prdStories(join(root, ".gantry", "features", feature, "prd.json"))
      .filter((s) => typeof s.id === "string" && !seen.has(s.id))
      .map(as);
  } catch {
    return [];
  }
}

/** A queued story as the view shows it. */
export const queuedView = (s: PrdStory): StoryView => ({
  id: s.id,
  title: String(s.title ?? s.id),
  status: s.status ?? (s.passes ? "passed" : "pending"),
  attempts: 0,
  costUsd: 0,
  costBasis: [],
  gates: [],
});

/** queuedView's JSON, made once per story of each prd.json read (a view is made per change). */
export function queuedJson(story: PrdStory): string {
  let json = queuedJsonOf.get(story);
  if (json === undefined) {
    json = JSON.stringify(queuedView(story));
    queuedJsonOf.set(story, json);
  }
  return json;
}
const queuedJsonOf = new WeakMap<PrdStory, string>();
