import { runGit } from "../../git/exec.js";
import { refSafe } from "../parallel/story-worktrees.js";

/** A shard branch found for `merge-shards`: on origin (fetched) or local. */
export interface ShardTip {
  index: number;
  /** The branch's name, `gantry/<feature>/shard-<i>`. */
  branch: string;
  /** The ref read: `refs/remotes/origin/...` or `refs/heads/...`. */
  ref: string;
  tip: string;
  /** The stories its prd.json says passed. */
  passed: string[];
}

/**
 * The feature's shard branches, by index: fetched from `origin` first when there is one (the runners
 * pushed them there), else the local branches. Each with the stories passed on it.
 */
export async function findShardTips(
  root: string,
  feature: string,
  prdPath: string,
  fetch: boolean,
): Promise<ShardTip[]> {
  const name = `gantry/${refSafe(feature)}/shard-`;
  const origin = await runGit(root, ["remote", "get-url", "origin"]).then(
    () => true,
    () => false,
  );
  if (fetch && origin)
    await runGit(root, ["fetch", "-q", "origin", `+refs/heads/${name}*:refs/remotes/origin/${name}*`]);
  const out = await runGit(root, [
    "for-each-ref",
    "--format=%(objectname) %(refname)",
    // for-each-ref matches a prefix only up to a slash: the folder, then the names in it.
    `refs/remotes/origin/${name.slice(0, name.lastIndexOf("/") + 1)}`,
    `refs/heads/${name.slice(0, name.lastIndexOf("/") + 1)}`,
  ]);
  const byIndex = new Map<number, ShardTip>();
  for (const line of out.split("\n").filter(Boolean)) {
    const [tip = "", ref = ""] = line.split(" ");
    const match = /\/shard-(\d+)$/.exec(ref);
    if (!match) continue;
    const index = Number(match[1]);
    // origin's (what the runner pushed) over a local branch of the same name.
    if (byIndex.has(index) && !ref.startsWith("refs/remotes/")) continue;
    byIndex.set(index, { index, branch: `${name}${index}`, ref, tip, passed: [] });
  }
  const prdInTree = (await runGit(root, ["ls-files", "--full-name", "--", prdPath])).trim();
  for (const shard of byIndex.values()) shard.passed = await passedAt(root, shard.tip, prdInTree);
  return [...byIndex.values()].sort((a, b) => a.index - b.index);
}

async function passedAt(root: string, commit: string, prdInTree: string): Promise<string[]> {
  try {
    const doc = JSON.parse(await runGit(root, ["show", `${commit}:${prdInTree}`])) as {
      userStories?: { id?: unknown; status?: unknown; passes?: unknown }[];
    };
    return (doc.userStories ?? [])
      .filter(
        (s) =>
          typeof s.id === "string" &&
          (s.status === "passed" || (s.status === undefined && s.passes === true)),
      )
      .map((s) => s.id as string);
  } catch {
    return [];
  }
}

/**
 * The shards as the plan (`gantry plan-shards` with the same K, on the feature branch as it is) has them:
 * a branch whose index is past K is not merged, and a shard speaks only for the stories the plan gave it,
 * so one shard's branch cannot mark another shard's story passed. Says what it left out.
 */
export function pinToPlan(
  shards: readonly ShardTip[],
  plan: readonly { stories: readonly string[] }[],
  warn: (line: string) => void,
): ShardTip[] {
  const pinned: ShardTip[] = [];
  for (const shard of shards) {
    const planned = plan[shard.index - 1]?.stories;
    if (!planned) {
      warn(`${shard.branch} is not in the plan of ${plan.length} shard(s); not merged`);
      continue;
    }
    const foreign = shard.passed.filter((id) => !planned.includes(id));
    if (foreign.length > 0)
      warn(
        `${shard.branch} says ${foreign.join(", ")} passed, which the plan gave to another shard; ignored`,
      );
    pinned.push({ ...shard, passed: shard.passed.filter((id) => planned.includes(id)) });
  }
  return pinned;
}
