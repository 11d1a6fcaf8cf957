import type { AgentAdapter } from "../../agents/adapter.js";
import type { Config } from "../../config/schema.js";
import { runGit } from "../../git/exec.js";
import { EMPTY_TREE, UNBORN } from "../../git/judge.js";
import { recordVerdict } from "../../ledger/record.js";
import type { CostBasis } from "../../model/agent.js";
import type { TestIntegrityFinding } from "../../model/events.js";
import type { Judged } from "../../model/ledger.js";
import type { PanelFinding } from "../../model/review.js";
import type { Story } from "../../prd/story.js";
import { withTreeReadOnly } from "../../process/sandbox.js";
import type { Workspace } from "../../verification/workspace.js";
import { decidePanel, type PanelDecision } from "./decision.js";
import { dispatchPanel, panelReviewers } from "./dispatch.js";
import { reviewerPrompt } from "./prompt.js";
import { runReviewerTests } from "./reviewer-test.js";

export interface PanelWork {
  run: Workspace & { runId: string; feature: string };
  story: Story;
  baseSha: string;
  pass: number;
  tier: string;
  promptDir: string;
  createAgent: (name: string, config: Config) => AgentAdapter;
  /** The test-integrity gate's findings when it failed on the tree being judged. */
  integrity?: (judged: Judged) => readonly TestIntegrityFinding[];
}

export interface PanelOutcome {
  decision: PanelDecision;
  judged: Judged;
  costUsd: number;
  /** How each reviewer session's cost is known, one entry a session. */
  costBases: CostBasis[];
}

/**
 * The review panel on the story's tree as it is now: every reviewer of `review.panel` at once, blind to
 * each other, read-only on the tree; the tests they supply run by gantry; then the decision rule, announced
 * as `review-decision:result` (the ledger's `review-decision` gate, bound to the tree judged).
 */
export async function runPanel(work: PanelWork): Promise<PanelOutcome> {
  const { run } = work;
  const judged = await run.git.judge();
  const from = work.baseSha === UNBORN ? EMPTY_TREE : work.baseSha;
  const diffArgs = ["diff", "--no-color", "--no-ext-diff", "--relative", "-M", from, judged.tree];
  const diff = await runGit(run.root, diffArgs);
  const known = new Set(
    (await runGit(run.root, [...diffArgs, "--name-only"])).split("\n").filter((l) => l.trim() !== ""),
  );
  const reviewers = panelReviewers(run.config.review.panel, run.config, work.createAgent, work.tier);
  const sandbox = run.sandbox ? withTreeReadOnly(run.sandbox, run.root) : undefined;
  const prompt = reviewerPrompt({ story: work.story, feature: run.feature, baseSha: work.baseSha, diff });
  const dispatched = await dispatchPanel({
    reviewers,
    prompt,
    promptDir: work.promptDir,
    storyId: work.story.id,
    pass: work.pass,
    tier: work.tier,
    feature: run.feature,
    runId: run.runId,
    root: run.root,
    timeoutMs: (run.config.review.timeoutSeconds ?? run.config.agent.timeoutSeconds) * 1000,
    signal: run.signal,
    bus: run.bus,
    ...(sandbox ? { sandbox } : {}),
  });
  const blocking: PanelFinding[] = dispatched.records
    .filter((r) => r.ok)
    .flatMap((r) => r.findings.filter((f) => f.severity === "blocking" && f.test));
  const tests = await runReviewerTests({
    run,
    baseSha: work.baseSha,
    tree: judged.tree,
    findings: blocking,
  });
  const decision = decidePanel({
    records: dispatched.records,
    sources: new Map(reviewers.map((r) => [r.name, r.source])),
    tests,
    integrity: work.integrity?.(judged) ?? [],
    knownFiles: known,
  });
  recordVerdict(run, "review-decision:result", {
    storyId: work.story.id,
    // Interrupted, a reviewer's missing answer says nothing about the work.
    verdict: run.signal.aborted ? "unverified" : decision.verdict,
    reason: decision.reason,
    blockers: decision.blockers,
    lowered: decision.lowered,
    others: decision.others,
    reviewers: dispatched.records.map(({ findings: _findings, ...rest }) => rest),
    judged,
    attempt: work.pass,
  });
  return {
    decision,
    judged,
    costUsd: dispatched.costUsd,
    costBases: dispatched.sessions.map((s) => s.costBasis),
  };
}
