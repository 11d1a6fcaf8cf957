import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { StoryView } from "./view-types.js";

type PrdStory = { id: string; title: string; status?: string; passes?: boolean };
/** Each prd.json as last parsed, by path, with the identity of the file it came from. */
const prdCache = new Map<string, { stamp: string; stories: PrdStory[] }>();

/** The stories of a prd.json, parsed again only when the file changed (a view is made at every change of a run). */
function prdStories(path: string): PrdStory[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  const stamp = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  const cached = prdCache.get(path);
  if (cached?.stamp === stamp) return cached.stories;
  const stories = JSON.parse(readFileSync(path, "utf8")).userStories as PrdStory[];
  prdCache.set(path, { stamp, stories });
  return stories;
}

/** The feature's stories the run has not reached yet, from its prd.json (tolerant: a torn file lists none). */
export function queuedStories(
  root: string,
  feature: string,
  seen: { has(id: string): boolean },
): StoryView[] {
  try {
    return notReached(root, feature, seen).map(queuedView);
  } catch {
    return [];
  }
}

/** queuedStories as each story's JSON, made once per story of each prd.json read (a view is made per change). */
export function queuedStoriesJson(
  root: string,
  feature: string,
  seen: { has(id: string): boolean },
): string[] {
  try {
    return notReached(root, feature, seen).map((story) => {
      let json = queuedJson.get(story);
      if (json === undefined) {
        json = JSON.stringify(queuedView(story));
        queuedJson.set(story, json);
      }
      return json;
    });
  } catch {
    return [];
  }
}
const queuedJson = new WeakMap<PrdStory, string>();

const notReached = (root: string, feature: string, seen: { has(id: string): boolean }) =>
  prdStories(join(root, ".gantry", "features", feature, "prd.json")).filter(
    (s) => typeof s.id === "string" && !seen.has(s.id),
  );

const queuedView = (s: PrdStory): StoryView => ({
  id: s.id,
  title: String(s.title ?? s.id),
  status: s.status ?? (s.passes ? "passed" : "pending"),
  attempts: 0,
  costUsd: 0,
  costBasis: [],
  gates: [],
});
