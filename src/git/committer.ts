import { runGit } from "./exec.js";
import { gitReason } from "./git-error.js";

/** Why `git commit` would refuse here (no user.name / user.email), in one line; undefined when it can commit. */
export async function identityProblem(
  cwd: string,
  env: Readonly<Record<string, string>>,
): Promise<string | undefined> {
  try {
    await runGit(cwd, ["var", "GIT_AUTHOR_IDENT"], { ...env });
    await runGit(cwd, ["var", "GIT_COMMITTER_IDENT"], { ...env });
    return undefined;
  } catch (error) {
    return `git has no identity to commit with (${gitReason(error)}); set user.name and user.email with git config`;
  }
}
