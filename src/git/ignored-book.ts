import { homedir } from "node:os";
import { join } from "node:path";
import { statKey } from "./folder-walk.js";
import { type CheckedFolders, type IgnoredListing, listIgnored, relistIgnored } from "./ignored-files.js";
import type { IndexedPaths } from "./ignored-from-index.js";

/** The ignored-files listings of one repository, each kept with the folders it was made from. */
export interface IgnoredBook {
  /** The whole listing. */
  list(): Promise<Set<string>>;
  /** The listing now, made from `before` (a set this book returned) where only some folders changed. */
  since(before: Set<string>): Promise<Set<string>>;
}

export function ignoredBook(
  cwd: string,
  prefix: string,
  dirs: { top: string; gitDir: string; commonDir: string },
  indexed?: (folders: readonly string[]) => IndexedPaths | undefined,
  checked?: () => Promise<CheckedFolders | undefined>,
): IgnoredBook {
  const made = new WeakMap<Set<string>, IgnoredListing>();
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  // The ignore rules that live outside the tree, and the config that may name another excludes file.
  const files = [
    join(dirs.commonDir, "info", "exclude"),
    join(dirs.commonDir, "config"),
    join(dirs.gitDir, "config.worktree"),
    join(xdg, "git", "ignore"),
    join(xdg, "git", "config"),
    join(process.env.HOME || homedir(), ".gitconfig"),
  ];
  const sources = () => files.map((file) => statKey(file) ?? "-").join("|");
  const keep = (listing: IgnoredListing) => {
    made.set(listing.paths, listing);
    return listing.paths;
  };
  return {
    list: async () => keep(await listIgnored(cwd, prefix, dirs.top, sources())),
    async since(before) {
      const prior = made.get(before);
      if (!prior) return keep(await listIgnored(cwd, prefix, dirs.top, sources()));
      return keep(await relistIgnored(cwd, prefix, dirs.top, prior, sources(), indexed, checked));
    },
  };
}
