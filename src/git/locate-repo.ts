import { isAbsolute, join } from "node:path";
import { InputError } from "../config/input-error.js";
import { runGit } from "./exec.js";
import { gitReason } from "./git-error.js";
import type { RepoLocations } from "./git-repo.js";

/** Where the repository at projectRoot is, asked of git; a setup git cannot work in is an InputError. */
export async function locateRepo(projectRoot: string): Promise<RepoLocations> {
  let located: string;
  try {
    located = await runGit(projectRoot, [
      "rev-parse",
      "--show-prefix",
      "--git-dir",
      "--git-common-dir",
      "--show-toplevel",
      "--show-object-format",
    ]);
  } catch (error) {
    // Not a repository, git missing, an unsafe owner: the user's setup, said in one line, exit 2.
    throw new InputError(projectRoot, "", `git cannot work here: ${gitReason(error)}`, "GANTRY_E_REPO");
  }
  const [prefix = "", gitDirRaw = ".git", commonRaw = gitDirRaw, top = projectRoot, objectFormat = "sha1"] =
    located.replace(/\n$/, "").split("\n");
  const gitDir = isAbsolute(gitDirRaw) ? gitDirRaw : join(projectRoot, gitDirRaw);
  const commonDir = isAbsolute(commonRaw) ? commonRaw : join(projectRoot, commonRaw);
  return { prefix, gitDir, commonDir, top, objectFormat };
}
