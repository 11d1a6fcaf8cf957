import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The text of every config file git reads in a worktree of the repository (the repository's own, the
 * user's, the system's), each after its name, when that is the whole config of every worktree of it;
 * undefined when git's config could differ between them: a worktree config, an include (an `includeIf
 * "gitdir:"` or `"onbranch:"` names another file for another worktree), or config given in the environment.
 * Equal texts (with equal environment) are equal config: what a caller may read once and share.
 */
export function sharedConfigText(dirs: { gitDir: string; commonDir: string }): string | undefined {
  if (existsSync(join(dirs.gitDir, "config.worktree"))) return undefined;
  if (
    Object.keys(process.env).some(
      (name) => name.startsWith("GIT_CONFIG_KEY_") || name === "GIT_CONFIG_PARAMETERS",
    )
  )
    return undefined;
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  const files = [
    join(dirs.commonDir, "config"),
    join(process.env.HOME || homedir(), ".gitconfig"),
    join(xdg, "git", "config"),
    "/etc/gitconfig",
    process.env.GIT_CONFIG_GLOBAL,
    process.env.GIT_CONFIG_SYSTEM,
  ];
  const texts: string[] = [];
  for (const file of files) {
    if (!file) continue;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      return undefined;
    }
    if (/include/i.test(text)) return undefined;
    texts.push(`${file}\0${text}`);
  }
  return texts.join("\0");
}
