/** A git command gantry ran failed; the message names the command, the repository and git's stderr. */
export class GitError extends Error {
  override name = "GitError";
}
