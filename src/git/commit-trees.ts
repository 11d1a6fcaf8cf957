/**
 * Commits' trees as gantry learned them in this process (it made the commit, or git named the tree): a
 * commit id names its content, so the answer never changes, and each worktree of a parallel run need not
 * ask git again for the tip it starts from. Bounded: past the bound the oldest is forgotten.
 */
const trees = new Map<string, string>();
const MAX_COMMITS = 256;

export function treeOfCommit(commit: string): string | undefined {
  return trees.get(commit);
}

export function rememberTreeOfCommit(commit: string, tree: string): void {
  if (!/^[0-9a-f]{40,64}$/.test(commit) || !/^[0-9a-f]{40,64}$/.test(tree)) return;
  if (trees.size >= MAX_COMMITS && !trees.has(commit)) trees.delete(trees.keys().next().value as string);
  trees.set(commit, tree);
}
