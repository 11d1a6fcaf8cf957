import { GitObjects } from "./git-objects.js";

const GANTRY = Buffer.from(".gantry");

/**
 * HEAD's tree without its top-level `.gantry` entry, written in node (sha1 objects; the tree is only ever
 * read into the private index, never committed), so that the run's first judge reads the index from it
 * and needs no `git rm --cached .gantry` after: at 50,000 files that `rm` reads and writes the whole index
 * once more. Undefined, and git's `rm` does it, when gantry runs below the top level or a tree cannot be read.
 */
export function headTreeWithoutGantry(objectsDir: string, head: string, prefix: string): string | undefined {
  if (prefix !== "") return undefined;
  const objects = new GitObjects(objectsDir);
  const commit = objects.read(head, "commit");
  const tree = commit && /^tree ([0-9a-f]{40})\n/.exec(commit.toString("latin1", 0, 46))?.[1];
  const entries = tree ? objects.readTree(tree) : undefined;
  if (!tree || !entries) return undefined;
  const kept = entries.filter((entry) => !entry.name.equals(GANTRY));
  return kept.length === entries.length ? tree : objects.writeTree(kept);
}
