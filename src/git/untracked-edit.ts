import { UNTRACKED_STAT_BYTES, walkUntracked } from "./untracked-cache.js";

/**
 * The UNTR body with the stat data of each valid folder on the way to each path (the top, then every folder
 * above the path's last component) set to zeros: git's status finds such a folder's stat data changed (no
 * folder has a ctime of 0, and ctime cannot be set) and reads it again, storing fresh data, as it does for a
 * folder `git add` invalidated (dir.c untracked_cache_invalidate_path, which with status's
 * DIR_SHOW_OTHER_DIRECTORIES invalidates every folder up to the top). The bitmaps stay as git wrote them.
 * Written into a copy; undefined when the body does not parse.
 */
export function untrackedInvalidated(body: Buffer, paths: readonly string[]): Buffer | undefined {
  const walked = walkUntracked(body);
  if (!walked) return undefined;
  const at = new Map<string, number>();
  for (const [i, path] of walked.paths.entries())
    if ((walked.statAt[i] as number) >= 0) at.set(path, walked.statAt[i] as number);
  const out = Buffer.from(body);
  for (const path of paths) {
    const folders = [""];
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1))
      folders.push(path.slice(0, slash + 1));
    for (const folder of folders) {
      const stat = at.get(folder);
      if (stat !== undefined) out.fill(0, stat, stat + UNTRACKED_STAT_BYTES);
    }
  }
  return out;
}
