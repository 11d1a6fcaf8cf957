import type { RefBook } from "../../git/ref-book.js";

/** By walk (its book): where gantry last left the feature branch. */
const lastTips = new WeakMap<RefBook, string>();

/** gantry left the feature branch at `sha` (the walk's start, or a merge it committed). */
export function noteFeatureTip(book: RefBook, sha: string): void {
  lastTips.set(book, sha);
}

/**
 * Why the feature branch may not take a merge: it is not where gantry left it, so something else (a
 * test, a hook, a person) moved it during the run, and what it added was judged by no one.
 */
export function featureBranchMoved(book: RefBook, tip: string): string | undefined {
  const expected = lastTips.get(book);
  if (expected === undefined || expected === tip) return undefined;
  return `the feature branch moved during the run by something other than gantry (gantry left it at ${expected.slice(0, 12)}, it is at ${tip.slice(0, 12)}); nothing is merged onto a commit no gate judged`;
}
