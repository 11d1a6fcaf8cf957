import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { runGit } from "../../git/exec.js";
import { listRuns } from "../../ledger/runs.js";
import { refSafe } from "../parallel/story-worktrees.js";

/** `gantry/<feature>/shard-<i>`: the branch one CI runner's shard of a feature is carried on. */
export const shardBranch = (feature: string, index: number) => `gantry/${refSafe(feature)}/shard-${index}`;

/** Where a shard's ledger travels: in its branch, under gantry's folder, one file a run. */
export const shardLedgerPath = (feature: string, index: number, runId: string) =>
  join(".gantry", "ledgers", refSafe(feature), `shard-${index}-${runId}.jsonl`);

/** Checks out the shard's branch, made (or reset) at the commit checked out now: the feature branch's tip. */
export async function enterShardBranch(root: string, feature: string, index: number): Promise<string> {
  const branch = shardBranch(feature, index);
  await runGit(root, ["-c", "core.hooksPath=/dev/null", "checkout", "-q", "-B", branch]);
  return branch;
}

/**
 * After the shard's run: its ledger (the newest run's) and prd.json committed on the shard branch, then
 * the branch pushed to `origin` when there is one (forced: the branch is gantry's, one runner's). Returns
 * what it did, for the user.
 */
export async function finishShard(
  root: string,
  feature: string,
  index: number,
  prdPath: string,
  push: boolean,
): Promise<string[]> {
  const notes: string[] = [];
  const runId = listRuns(root).at(-1);
  const ledger = runId ? join(root, ".gantry", "runs", runId, "ledger.jsonl") : undefined;
  const paths = [relative(root, prdPath)];
  if (runId && ledger && existsSync(ledger)) {
    const into = shardLedgerPath(feature, index, runId);
    mkdirSync(dirname(join(root, into)), { recursive: true });
    copyFileSync(ledger, join(root, into));
    paths.push(into);
  }
  await runGit(root, ["add", "-f", "--", ...paths]);
  const staged = await runGit(root, ["diff", "--cached", "--name-only"]);
  if (staged.trim() !== "") {
    await runGit(root, [
      "-c",
      "core.hooksPath=/dev/null",
      "commit",
      "-q",
      "-m",
      `gantry: ledger of ${shardBranch(feature, index)}${runId ? ` (run ${runId})` : ""}`,
      "--",
      ...paths,
    ]);
    notes.push(`committed the shard's ledger and prd.json on ${shardBranch(feature, index)}`);
  }
  const origin = await runGit(root, ["remote", "get-url", "origin"]).then(
    () => true,
    () => false,
  );
  if (push && origin) {
    const branch = shardBranch(feature, index);
    await runGit(root, ["push", "-q", "--force", "origin", `HEAD:refs/heads/${branch}`]);
    notes.push(`pushed ${branch} to origin`);
  }
  return notes;
}
