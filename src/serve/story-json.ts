import { passesThisRun } from "../reporters/story-fold.js";
import type { StoryView } from "./view-types.js";

/** A story as a view shows it: its cost rounded, its lists copied (the watcher keeps changing its own). */
export const storyCopy = (story: StoryView): StoryView => ({
  ...story,
  passes: passesThisRun(story),
  costUsd: roundUsd(story.costUsd),
  gates: [...story.gates],
  ...(story.reviews ? { reviews: [...story.reviews] } : {}),
});

export const roundUsd = (usd: number) => Math.round(usd * 10_000) / 10_000;

/**
 * Each story's JSON as a view shows it, made again only after an event touched that story: a run's view is
 * made again at every change (an event or two, one story), and its 20-odd stories were most of the making.
 */
export class StoryJson {
  private readonly made = new Map<string, string>();

  /** The story changed (or may have): its JSON is made again when next asked for. */
  forget(id: string): void {
    this.made.delete(id);
  }

  of(story: StoryView): string {
    let json = this.made.get(story.id);
    if (json === undefined) {
      json = JSON.stringify(storyCopy(story));
      this.made.set(story.id, json);
    }
    return json;
  }
}
