import { runGit } from "./exec.js";

/** Past these the judge adds the whole tree instead (an argument list that long costs more than it saves). */
const MAX_PATHS = 2000;
const MAX_PATH_BYTES = 128 * 1024;

/**
 * What differs in the working tree from the private index, by git's stat pass against it (`git status`
 * with the untracked cache: every entry's stat data, every folder's stat data, a folder read again only
 * when its mtime or ctime changed, and ctime cannot be set back), `.gantry/` left out: the paths of changed,
 * removed and type-changed entries, and of untracked, not ignored files (a wholly untracked folder as
 * `dir/`). Column 1 (the index against the private HEAD, the judged change itself) is not a difference.
 * The refreshed stat data and the untracked cache are written back into the private index.
 */
export async function differencesFromIndex(scope: {
  top: string;
  prefix: string;
  git: { env: Record<string, string> };
  statusStarted?: number;
}): Promise<string[]> {
  const gantry = `${scope.prefix}.gantry/`;
  const started = Date.now();
  // No pathspec: the untracked cache serves only a whole-tree status.
  const out = await runGit(
    scope.top,
    [
      "-c",
      "core.untrackedCache=true",
      "status",
      "--porcelain=v1",
      "-z",
      "--no-renames",
      "--untracked-files=normal",
    ],
    { ...scope.git.env, GIT_OPTIONAL_LOCKS: "1" },
  );
  // The untracked cache this status left in the private index was checked from then on (ignored-files.ts).
  scope.statusStarted = started;
  const paths: string[] = [];
  for (const entry of out.split("\0")) {
    if (entry.length < 4) continue;
    const path = entry.slice(3);
    if (path === gantry.slice(0, -1) || path.startsWith(gantry)) continue;
    // Y, the working tree against the index: "?" for an untracked path.
    if (entry[1] !== " ") paths.push(path);
  }
  return paths;
}

/**
 * The judge's pathspecs for `add -A` when git's status listed what changed (`differencesFromIndex`), each
 * literal from the top level (`gantry`: `.gantry/`'s path from there); undefined when the list is too long to
 * be worth it, or names a folder holding `.gantry/` (the whole tree is added, `.gantry/` excluded).
 */
export function addPathspecs(paths: readonly string[], gantry: string): string[] | undefined {
  if (paths.length > MAX_PATHS) return undefined;
  // `.gantry/`'s own entries were left out; a folder listed whole that holds it would bring it in.
  if (paths.some((path) => path.endsWith("/") && gantry.startsWith(path))) return undefined;
  let bytes = 0;
  for (const path of paths) bytes += Buffer.byteLength(path) + 16;
  if (bytes > MAX_PATH_BYTES) return undefined;
  return paths.map((path) => `:(top,literal)${path}`);
}
