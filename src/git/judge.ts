import { posix } from "node:path";
import { type GitStep, runGit, runGitSteps } from "./exec.js";
import type { PrivateGit } from "./hermetic.js";

export const UNBORN = "0000000000000000000000000000000000000000";
/** The tree with nothing in it (sha1 repositories). */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** The judge will not judge this tree: what it would commit is not what is on disk. */
export class JudgeRefusal extends Error {
  override name = "JudgeRefusal";
}

export interface TreeScope {
  /** Where gantry runs, and its path from the repository's top level ("" or "packages/x/"). */
  cwd: string;
  prefix: string;
  git: PrivateGit;
  /** What the private index holds now: HEAD's entries (without .gantry/) as of `head`, plus the last judge. */
  index: { head?: string };
  /** `base tree` → what escapes checked last: a tree judged again (verify, review, completion) is not re-read. */
  checked: Map<string, string[]>;
  /** Who commits, read once a run (a change to it during a session is a tamper). */
  identity?: Record<string, string>;
}

/** gantry's own files never count as the content being judged. */
export const GANTRY_DIR = ".gantry";

/**
 * The tree of the working tree as a fresh checkout of it would be: HEAD's entries (stat data kept from
 * the last judge, flags never copied), then every tracked and untracked, not ignored file as its bytes on
 * disk, .gantry/ left out. Refuses a tree whose new symlinks leave the repository or whose new nested
 * repositories are not registered submodules: their content would not be in the commit.
 */
export async function judgeTree(scope: TreeScope, head: string): Promise<string> {
  const gantry = `:(top)${scope.prefix}${GANTRY_DIR}`;
  // From HEAD's entries when HEAD moved since the index was last based on it; -m keeps the stat data of
  // unchanged entries (no rehash), -i ignores the working tree, which `add` then reads.
  const rebase: GitStep[] =
    scope.index.head === head
      ? []
      : [
          { args: head === UNBORN ? ["read-tree", "--empty"] : ["read-tree", "-m", "-i", head] },
          { args: ["rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--", gantry] },
        ];
  scope.index.head = undefined;
  const tree = (
    await runGitSteps(
      scope.cwd,
      [
        ...rebase,
        {
          args: ["add", "-A", "--", ":(top)", `:(exclude,top)${scope.prefix}${GANTRY_DIR}`],
          tolerate: "are ignored by one of your .gitignore files",
        },
        { args: ["write-tree"] },
      ],
      scope.git.env,
    )
  ).trim();
  scope.index.head = head;
  const key = `${head} ${tree}`;
  const problems =
    scope.checked.get(key) ?? (await escapes(scope, head === UNBORN ? EMPTY_TREE : head, tree));
  if (scope.checked.size > 64) scope.checked.clear();
  scope.checked.set(key, problems);
  if (problems.length > 0)
    throw new JudgeRefusal(`the working tree cannot be judged: ${problems.join("; ")}`);
  return tree;
}

/** Entries the change added or changed that would not carry their content into a commit. */
async function escapes(scope: TreeScope, base: string, tree: string): Promise<string[]> {
  const raw = await runGit(
    scope.cwd,
    [
      "diff-tree",
      "-r",
      "-z",
      "--no-renames",
      base,
      tree,
      "--",
      ":(top)",
      `:(exclude,top)${scope.prefix}${GANTRY_DIR}`,
    ],
    scope.git.env,
  );
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
    const target = await runGit(scope.cwd, ["cat-file", "blob", link.blob], scope.git.env);
    if (leavesRepository(link.path, target))
      problems.push(`${link.path} is a symlink to ${JSON.stringify(target)}, outside the repository`);
  }
  if (gitlinks.length > 0) {
    const registered = await submodulePaths(scope, tree);
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

async function submodulePaths(scope: TreeScope, tree: string): Promise<Set<string>> {
  try {
    const out = await runGit(
      scope.cwd,
      ["config", "-z", "--blob", `${tree}:.gitmodules`, "--get-regexp", "^submodule\\..*\\.path$"],
      scope.git.env,
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
