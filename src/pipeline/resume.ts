import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { GitRepo } from "../git/git-repo.js";
import { saveStoryPatch } from "../prd/save.js";
import type { Prd } from "../prd/story.js";
import { type RunStateData, readRunState } from "../runs/run-state.js";

/** The newest earlier run of this feature, if any. */
export function previousRun(root: string, feature: string): RunStateData | undefined {
  const runs = join(root, ".gantry", "runs");
  if (!existsSync(runs)) return undefined;
  for (const dir of readdirSync(runs).sort().reverse()) {
    const state = readRunState(join(runs, dir));
    if (state?.feature === feature) return state;
  }
  return undefined;
}

/**
 * Settles what a killed run left half-done. A story marked passed just before its commit whose commit
 * never landed goes back to pending (its work is still in the working tree); a commit that landed stands
 * when its tree is the judged tree, and otherwise the story runs again.
 */
export async function reconcile(
  previous: RunStateData | undefined,
  git: GitRepo,
  prdPath: string,
): Promise<string[]> {
  const notes: string[] = [];
  if (!previous?.committing) return notes;
  const { storyId, subject, tree } = previous.committing;
  const landed = (await git.headSubject()) === subject;
  // A landed commit counts only when it holds the tree the verdicts judged (older state files lack it).
  if (landed && (tree === undefined || (await git.sameContent(await git.head(), tree)))) {
    notes.push(`${storyId}: its commit landed before the previous run stopped`);
  } else {
    saveStoryPatch(prdPath, storyId, { status: "pending" });
    notes.push(`${storyId}: the previous run stopped before committing it; it will run again`);
  }
  return notes;
}

/** An earlier run that did not finish leaves its story's work in the tree; resuming it is not a dirty start. */
export function isResumable(previous: RunStateData | undefined): boolean {
  return previous !== undefined && previous.status !== "complete";
}

/**
 * `resuming run 20260304-050607-ab12 (interrupted) at US-002: …`, for a run that follows one that did not finish:
 * which run, and which story was left in flight (paused by an interruption, or in progress when it was killed).
 */
export function resumeNote(previous: RunStateData | undefined, prd: Prd): string | undefined {
  if (!isResumable(previous) || !previous) return undefined;
  const inFlight = prd.userStories
    .filter((s) => s.status === "paused" || s.status === "in-progress")
    .map((s) => s.id);
  const at = inFlight.length > 0 ? ` at ${inFlight.join(", ")}` : "";
  const work =
    inFlight.length > 0 ? "; the work done so far is still in the working tree and is built on" : "";
  const how = previous.status === "running" ? "stopped without finishing" : previous.status;
  return `resuming run ${previous.runId} (${how})${at}${work}`;
}
