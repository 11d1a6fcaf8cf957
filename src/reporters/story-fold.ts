import type { StoryStatus } from "../model/story.js";
import type { EventArgs } from "./types.js";

/** What every view of a run (the terminal, the reports, the live page) shows of a story's progress. */
export interface StoryProgress {
  status: string;
  /** Passes over the story: the one in flight included. */
  attempts: number;
  tier?: string;
  stage?: string;
  reason?: string;
  /** This run's first pass over the story: passes before it were earlier runs'. */
  firstPassThisRun?: number;
}

/**
 * The one fold of a story's events into its progress, so every view counts alike. A pass is counted when it
 * starts: `story:start` starts the pass after those the story had, and each later `routing` (a new tier, or
 * another try at one) one more; an end event or `escalation:exhausted` carries the exact count.
 */
export class StoryFold {
  /** Stories whose first pass of this run has not reached routing yet. */
  private readonly firstPass = new Set<string>();

  /** Folds one event into `story` (the story it names); false when the event says nothing of its progress. */
  apply(story: StoryProgress, ...[type, e]: EventArgs): boolean {
    switch (type) {
      case "story:start":
        Object.assign(story, { status: "in-progress", tier: e.tier, attempts: e.story.attempts + 1 });
        story.firstPassThisRun ??= e.story.attempts + 1;
        story.reason = undefined;
        this.firstPass.add(e.story.id);
        return true;
      case "stage:enter":
        story.stage = e.stage;
        if (e.stage === "routing" && !this.firstPass.delete(e.storyId)) story.attempts += 1;
        return true;
      case "escalation:tier-change":
        story.tier = e.to;
        return true;
      case "escalation:exhausted":
        story.attempts = Math.max(story.attempts, e.attempts);
        return true;
      case "story:complete":
        // Passed in its worktree (--parallel) is not passed yet: its merge is judged again first.
        Object.assign(story, {
          status: e.inWorktree ? "in-progress" : "passed",
          attempts: e.metrics.attempts,
          tier: e.metrics.tier,
        });
        story.stage = e.inWorktree ? "merge" : undefined;
        return true;
      case "story:merge":
        if (e.outcome !== "merged") return false;
        story.status = "passed";
        story.stage = undefined;
        return true;
      case "story:fail":
        end(story, "failed", e.story.attempts, e.reason);
        return true;
      case "story:skip":
        end(story, e.story.status === "blocked" ? "blocked" : "skipped", e.story.attempts, e.reason);
        return true;
      default:
        return false;
    }
  }
}

/** How many passes this run gave the story: a resumed story's passes in earlier runs are not counted. */
export function passesThisRun(story: StoryProgress): number {
  if (story.firstPassThisRun === undefined) return 0;
  return Math.max(1, story.attempts - (story.firstPassThisRun ?? 1) + 1);
}

function end(story: StoryProgress, status: StoryStatus, attempts: number, reason: string): void {
  Object.assign(story, { status, attempts, reason });
  story.stage = undefined;
}
