import { existsSync } from "node:fs";
import { RefBook } from "../../git/ref-book.js";
import type { RepoLocations } from "../../git/repo.js";
import { commitSubjectOf, isAncestor } from "../../git/worktree.js";
import { loadPrd } from "../../prd/load.js";
import { saveStoryPatch } from "../../prd/save.js";
import { commitSubject } from "../../stages/completion.js";
import { retireStoryWorktree, storyWorktrees, worktreeHome, worktreesDir } from "./story-worktrees.js";

/**
 * Before a run picks its stories: the story worktrees an earlier `--parallel` run left behind. One whose
 * commits the feature branch already holds was merged (it is removed, the story passed); any other is
 * work not merged yet, so its story is taken up again whatever prd.json says (the walk merges a finished
 * one, resumes an unfinished one in place). Returns what it settled, and whether worktrees remain.
 */
export async function settleStoryWorktrees(
  root: string,
  feature: string,
  prdPath: string,
  known?: RepoLocations,
): Promise<{ notes: string[]; remaining: number }> {
  const home = await worktreeHome(root, feature, known);
  if (!existsSync(worktreesDir(home))) return { notes: [], remaining: 0 };
  const stories = loadPrd(prdPath).userStories;
  const ids = stories.map((s) => s.id);
  const notes: string[] = [];
  let remaining = 0;
  for (const [id, worktree] of await storyWorktrees(home, ids)) {
    const story = stories.find((s) => s.id === id);
    const committed =
      story !== undefined &&
      (await commitSubjectOf(home.top, worktree.head)) === commitSubject(story.id, story.title);
    // Only the story's own commit counts: a branch with none is still at a commit HEAD holds anyway.
    if (committed && (await isAncestor(home.top, worktree.head, "HEAD"))) {
      await retireStoryWorktree(home, new RefBook(), worktree, true);
      saveStoryPatch(prdPath, id, { status: "passed" });
      notes.push(`${id}: its merge landed before the previous run stopped; its worktree is removed`);
      continue;
    }
    remaining += 1;
    saveStoryPatch(prdPath, id, { status: "in-progress" });
    notes.push(`${id}: its worktree from the previous run is taken up again`);
  }
  return { notes, remaining };
}
