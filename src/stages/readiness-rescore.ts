import { filesNamed } from "../agents/prompt.js";
import { recordVerdict } from "../ledger/record.js";
import type { Judged } from "../model/ledger.js";
import type { ReadinessGap, ReadinessRecord } from "../model/readiness.js";
import { gapSet, openBlockers, scoreReadiness } from "../prd/readiness.js";
import type { Story } from "../prd/story.js";
import type { RunContext } from "./context.js";
import { namedInTree } from "./readiness.js";

/**
 * Readiness judged by a run that did not start the stories: `gantry merge-shards`, where the shard runner's
 * readiness verdicts are under that machine's ledger key and so are not this run's to carry. When
 * `readiness` is a mandatory gate, each story the merge brings in is scored again here, on the files of the
 * tree it arrives with, counting the gaps people accepted and the research findings kept for it in
 * prd.json; no research session is spent and no question asked. One verdict is announced for the merge
 * (`mergeId`), a pass only when no story has an open blocker, bound to `judged`; the merge carries a pass
 * onto the merged tree as it does a story's (readiness-carry.ts).
 */
export function rescoreReadiness(
  run: RunContext,
  mergeId: string,
  stories: readonly Story[],
  files: ReadonlySet<string>,
  judged: Judged,
): void {
  if (!run.mandatoryGates.includes("readiness")) return;
  const knownIds = new Set(run.stories.prd.userStories.map((s) => s.id));
  const gaps: ReadinessGap[] = [];
  const open: ReadinessGap[] = [];
  for (const story of stories) {
    const record = (story as { readiness?: ReadinessRecord }).readiness ?? {};
    const found = scoreReadiness({
      story,
      knownIds,
      filesNamed: filesNamed(story),
      exists: (path) => namedInTree(files, path),
      limits: run.config.readiness,
      findings: record.findings ?? [],
    }).map((gap) => ({ ...gap, detail: `${story.id}: ${gap.detail}` }));
    gaps.push(...found);
    open.push(...openBlockers(found, record.accepted ?? []));
  }
  recordVerdict(run, "readiness:result", {
    storyId: mergeId,
    verdict: open.length === 0 ? "pass" : "fail",
    gaps,
    accepted: [],
    gapSet: gapSet(open),
    judged,
    attempt: 1,
  });
}
