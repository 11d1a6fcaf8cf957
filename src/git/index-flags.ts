import { runGit } from "./exec.js";
import { readIndexFlags } from "./index-file.js";

/**
 * The skip-worktree and assume-unchanged flags of the user's index (`S path`, `h path`) and which version of
 * the file they are from: read in node, key and flags from one descriptor (no `ls-files -v`, which at
 * 50,000 entries prints every one); git is asked for an index this cannot read whole (split, sparse), and
 * `key` (fileKey, taken before) names that version.
 */
export async function userIndexFlags(
  cwd: string,
  index: string,
  key: string,
  hashBytes: number,
): Promise<{ indexKey: string; indexFlags: Set<string> }> {
  const read = readIndexFlags(index, hashBytes);
  if (read) return { indexKey: read.key, indexFlags: read.indexFlags };
  return {
    indexKey: key,
    indexFlags: parseIndexFlags(await runGit(cwd, ["ls-files", "-v", "-z", "--", ":(top)"])),
  };
}

/** The flags in `git ls-files -v -z` output. */
export function parseIndexFlags(out: string): Set<string> {
  const flags = new Set<string>();
  for (const entry of out.split("\0")) {
    const tag = entry[0];
    if (!tag) continue;
    // A lowercase tag is an assume-unchanged entry; `s` is one that is skip-worktree too.
    if (tag === "S" || tag === "s") flags.add(`S ${entry.slice(2)}`);
    if (/[a-z]/.test(tag)) flags.add(`h ${entry.slice(2)}`);
  }
  return flags;
}
