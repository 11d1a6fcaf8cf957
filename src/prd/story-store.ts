import type { StoryStatus } from "../model/story.js";
import { type LastWrite, type StoryPatch, saveStoryPatch } from "./save.js";
import { type Prd, type Story, statusOf } from "./story.js";

/** The run's view of the PRD: stories in memory, every change written back to prd.json at once. */
export class StoryStore {
  private readonly byId: Map<string, Story>;
  private readonly lastWrite: LastWrite = {};

  constructor(
    readonly path: string,
    readonly prd: Prd,
  ) {
    this.byId = new Map(prd.userStories.map((s) => [s.id, s]));
  }

  get(id: string): Story | undefined {
    return this.byId.get(id);
  }

  status(id: string): StoryStatus | undefined {
    const story = this.byId.get(id);
    return story ? statusOf(story) : undefined;
  }

  update(id: string, patch: StoryPatch): void {
    const story = this.byId.get(id);
    if (!story) return;
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      if (value === null) delete (story as Record<string, unknown>)[key];
      else (story as Record<string, unknown>)[key] = value;
    }
    if (patch.status) story.passes = patch.status === "passed";
    saveStoryPatch(this.path, id, patch, this.lastWrite);
  }
}
