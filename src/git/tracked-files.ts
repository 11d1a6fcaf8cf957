import { runGit } from "./exec.js";

/** Files git tracks under `root`, relative to it: what gantry checks a story's or a citation's paths against. */
export async function trackedFiles(root: string): Promise<Set<string>> {
  const out = await runGit(root, ["ls-files", "-z", "--cached"]);
  return new Set(out.split("\0").filter(Boolean));
}

/** HEAD and its tree, for a verdict about the story's text rather than a working tree; zeros when unborn. */
export async function headAndTree(root: string): Promise<{ sha: string; tree: string }> {
  try {
    const [sha, tree] = (await runGit(root, ["rev-parse", "HEAD", "HEAD^{tree}"])).trim().split("\n");
    return { sha: sha ?? "", tree: tree ?? "" };
  } catch {
    return { sha: "0".repeat(40), tree: "0".repeat(40) };
  }
}
