import type { GitRepo } from "../git/git-repo.js";
import { openRepo, type RepoLocations } from "../git/repo.js";
import { killRunProcesses } from "../process/leftovers.js";
import type { RunStateData } from "../runs/run-state.js";
import { settleStoryWorktrees } from "./parallel/leftovers.js";
import { commitBranch, uncommittedChanges } from "./repository-problems.js";
import { isResumable, previousRun, reconcile } from "./resume.js";

/** What the start check is given of the run's options. */
export interface StartOptions {
  root: string;
  feature: string;
  prdPath: string;
  allowDirty: boolean;
  warn: (line: string) => void;
  /** Where the repository is, as the pre-flight found it (no `rev-parse` again); asked of git when absent. */
  repository?: RepoLocations;
}

/**
 * What a run does and checks before its first story, on the repository it opens: the processes an
 * interrupted run of the feature left are stopped, git can commit on a branch, the last run is reconciled
 * with the tree and its story worktrees settled, and the tree is clean unless the run resumes or is told
 * otherwise. Returns the earlier run of this feature when it did not finish (its story's work is still in
 * the tree), how many story worktrees remain, and the open repository.
 */
export async function checkStart(
  options: StartOptions,
): Promise<{ previous?: RunStateData; worktrees: number; git: GitRepo }> {
  const git = await openRepo(options.root, options.repository);
  try {
    return await checkStartIn(git, options);
  } catch (error) {
    git.close();
    throw error;
  }
}

async function checkStartIn(
  git: GitRepo,
  options: StartOptions,
): Promise<{ previous?: RunStateData; worktrees: number; git: GitRepo }> {
  const previous = previousRun(options.root, options.feature);
  if (isResumable(previous) && previous) {
    const killed = killRunProcesses(previous.runId);
    if (killed > 0)
      options.warn(`gantry: stopped ${killed} process group(s) left running by run ${previous.runId}`);
  }
  await commitBranch(git, options.root);
  for (const note of await reconcile(previous, git, options.prdPath)) options.warn(`gantry: ${note}`);
  const leftovers = await settleStoryWorktrees(
    options.root,
    options.feature,
    options.prdPath,
    options.repository,
  );
  for (const note of leftovers.notes) options.warn(`gantry: ${note}`);
  // Looked for only when it matters: the run's first judge (kept for the first session), status when it finds a change.
  const dirty = options.allowDirty || isResumable(previous) ? [] : await git.uncommittedAtStart();
  if (dirty.length > 0) throw uncommittedChanges(options.root, dirty);
  return { ...(isResumable(previous) ? { previous } : {}), worktrees: leftovers.remaining, git };
}
