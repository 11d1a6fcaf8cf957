import { posix } from "node:path";
import { runGit } from "./exec.js";

/** Entries the change added or changed (`raw`: diff-tree -z of HEAD and the tree) that would not carry their content into a commit. */
export async function escapingEntries(
  cwd: string,
  env: Record<string, string>,
  raw: string,
  tree: string,
): Promise<string[]> {
  const parts = raw.split("\0");
  const links: { path: string; blob: string }[] = [];
  const gitlinks: string[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    // A deleted entry's new mode is 000000: only added and changed entries are looked at.
    const [, newMode, , newSha = ""] = (parts[i] ?? "").split(" ");
    const path = parts[i + 1] ?? "";
    if (newMode === "120000") links.push({ path, blob: newSha });
    if (newMode === "160000") gitlinks.push(path);
  }
  const problems: string[] = [];
  for (const link of links) {
    const target = await runGit(cwd, ["cat-file", "blob", link.blob], env);
    if (leavesRepository(link.path, target))
      problems.push(`${link.path} is a symlink to ${JSON.stringify(target)}, outside the repository`);
  }
  if (gitlinks.length > 0) {
    const registered = await submodulePaths(cwd, env, tree);
    for (const path of gitlinks.filter((p) => !registered.has(p)))
      problems.push(`${path} is a nested git repository that is not a registered submodule`);
  }
  return problems;
}

export function leavesRepository(linkPath: string, target: string): boolean {
  if (target.startsWith("/")) return true;
  const resolved = posix.normalize(posix.join(posix.dirname(linkPath), target));
  return resolved === ".." || resolved.startsWith("../");
}

async function submodulePaths(cwd: string, env: Record<string, string>, tree: string): Promise<Set<string>> {
  try {
    const out = await runGit(
      cwd,
      ["config", "-z", "--blob", `${tree}:.gitmodules`, "--get-regexp", "^submodule\\..*\\.path$"],
      env,
    );
    return new Set(
      out
        .split("\0")
        .filter(Boolean)
        .map((entry) => entry.slice(entry.indexOf("\n") + 1)),
    );
  } catch {
    return new Set();
  }
}
