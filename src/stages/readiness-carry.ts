import { PASSING } from "../ledger/gate-rule.js";
import { recordVerdict } from "../ledger/record.js";
import type { LedgerEntry } from "../model/ledger.js";
import type { ReadinessGap, ReadinessGapCode } from "../model/readiness.js";
import type { StoryContext } from "./context.js";

/**
 * Readiness judges the story (its criteria, the files it names, its dependencies), not a tree: its verdict
 * is bound to HEAD's tree when the story started, which is never the tree the story commits (nor a
 * `--parallel` merge of it). When `readiness` is a mandatory gate, the story's latest readiness verdict of
 * this run, if it passed, is announced again bound to the tree about to be committed, naming the tree it
 * was judged on (`carriedFrom`). A failed or missing verdict is not carried, so the gate stays unmet. Only
 * the run's own verdicts in memory are read, never a file the agent could write.
 */
export function carryReadiness(ctx: StoryContext, judged: { sha: string; tree: string }): void {
  const { run, story } = ctx;
  if (!run.mandatoryGates.includes("readiness")) return;
  let latest: LedgerEntry | undefined;
  for (const entry of run.verdicts.entries)
    if (entry.storyId === story.id && entry.gate === "readiness") latest = entry;
  if (!latest || !PASSING.has(latest.verdict) || latest.tree === judged.tree) return;
  const detail = latest.detail as {
    gaps?: ReadinessGap[];
    accepted?: ReadinessGapCode[];
    carriedFrom?: string;
  };
  recordVerdict(run, "readiness:result", {
    storyId: story.id,
    verdict: latest.verdict,
    gaps: detail.gaps ?? [],
    accepted: detail.accepted ?? [],
    gapSet: [],
    carriedFrom: detail.carriedFrom ?? latest.tree,
    judged: { sha: judged.sha, tree: judged.tree },
    attempt: ctx.pass,
  });
}
