import { join } from "node:path";
import { AgentRegistry } from "../agents/registry.js";
import type { TestIntegrityFinding } from "../model/events.js";
import type { Judged } from "../model/ledger.js";
import type { DecidedFinding } from "../model/review.js";
import type { StageResult } from "../model/stage.js";
import { pluginsOf, registerPluginAgents } from "../plugins/registry.js";
import type { PanelDecision } from "../review/panel/decision.js";
import { runPanel } from "../review/panel/run-panel.js";
import type { StoryContext } from "./context.js";
import { sessionNotNow } from "./cost-cap.js";
import { gateFailure } from "./gate-feedback.js";
import { guardSession } from "./session-guard.js";

/**
 * The review panel's part of the review stage, when `review.panel` is set: the panel runs, its decision is
 * the `review-decision` gate. Findings that do not block go to the next rectify or autofix prompt; a
 * blocker that stands sends the story back to rectify like a failing test; a reviewer without a valid
 * answer fails the pass. Undefined when the stage goes on as it would without a panel.
 */
export async function reviewPanel(ctx: StoryContext): Promise<StageResult | undefined> {
  const { run } = ctx;
  if (run.config.review.panel.length === 0) return undefined;
  const blocked = sessionNotNow(ctx.run);
  if (blocked) return { action: "pause", reason: blocked };
  const registry = new AgentRegistry();
  registerPluginAgents(registry, pluginsOf(run));
  const guard = await guardSession(ctx, "review");
  const outcome = await runPanel({
    run,
    story: ctx.story,
    baseSha: ctx.baseSha,
    pass: ctx.pass,
    tier: ctx.tier,
    promptDir: join(run.runDir, "prompts"),
    createAgent: (name, config) => registry.create(name, config),
    integrity: (judged) => integrityFindings(ctx, judged),
  }).catch((error: Error) => error);
  const tampered = await guard.finish();
  if (tampered) return tampered;
  if (outcome instanceof Error) {
    return { action: "fail", reason: `review panel could not run: ${outcome.message}` };
  }
  // Unsandboxed, nothing kept the reviewers off the tree: a verdict on a tree they changed judges nothing.
  if (!run.sandbox && (await run.git.judge()).tree !== outcome.judged.tree) {
    return {
      action: "fail",
      reason:
        "a review-panel session changed the working tree it was reviewing (no sandbox kept it read-only)",
    };
  }
  run.cost.usd += outcome.costUsd;
  run.cost.sessions += outcome.costBases.length;
  for (const basis of outcome.costBases) run.cost.byBasis[basis] += 1;
  ctx.costUsd += outcome.costUsd;
  run.bus.emit("run:cost-check", { costUsd: run.cost.usd, limitUsd: run.config.execution.costLimitUsd });
  if (run.signal.aborted) return { action: "pause", reason: "interrupted" };
  const { decision } = outcome;
  const notes = [...decision.lowered, ...decision.others.filter((f) => f.severity === "important")];
  ctx.reviewNotes = notes.length > 0 ? notes : undefined;
  if (decision.missing.length > 0) return { action: "fail", reason: `review-decision: ${decision.reason}` };
  if (decision.blockers.length === 0) return undefined;
  ctx.verify = blockersToFix(ctx, decision);
  // Rectify stops early when the count does not go down: here that count is the blockers, not the tests.
  ctx.failureHistory[Math.max(ctx.failureHistory.length - 1, 0)] = decision.blockers.length;
  return { action: "retry", fromStage: "rectify", reason: `review-decision: ${decision.reason}` };
}

/** The failing test-integrity verdict's findings on this tree, when there is one (a command's, never lowered). */
function integrityFindings(ctx: StoryContext, judged: Judged): TestIntegrityFinding[] {
  const latest = ctx.integrity;
  return latest?.verdict === "fail" && latest.judged.tree === judged.tree ? latest.findings : [];
}

/** The standing blockers as the failure rectify works from, each with its basis. */
function blockersToFix(ctx: StoryContext, decision: PanelDecision) {
  const passed = ctx.passedVerify;
  const base = {
    storyId: ctx.story.id,
    strategy: "scoped" as const,
    status: "PASS" as const,
    success: true,
    runner: passed?.runner ?? "review-panel",
    passCount: passed?.passCount ?? 0,
    failCount: 0,
    skipCount: passed?.skipCount ?? 0,
    totalCount: passed?.passCount ?? 0,
    failures: [],
    command: passed?.command ?? "",
    exitCode: 0,
    durationMs: 0,
    rawOutputTail: "",
  };
  const failures = decision.blockers.map((b) => ({
    file: b.file,
    name: `review-decision: ${b.ruleId ?? "blocking finding"}`,
    message: `${b.line > 0 ? `line ${b.line}: ` : ""}${b.text} (${basisText(b)})`,
  }));
  return gateFailure(base, "review-decision", failures, `review-decision: ${decision.reason}`, [
    "The tests pass, but the review panel found problems that block the story, each backed by more than one",
    "reviewer's opinion (two independent reviewers, a test that fails on this change, or test-integrity):",
    ...decision.blockers.map(
      (b) => `  - ${b.file}${b.line > 0 ? `:${b.line}` : ""} ${b.text} (${basisText(b)})`,
    ),
    "Fix them; keep the acceptance criteria met and the tests passing.",
  ]);
}

function basisText(b: DecidedFinding): string {
  if (b.basis === "corroborated") return `raised by ${b.reviewers?.join(" and ")}`;
  if (b.basis === "failing-test")
    return `${b.reviewer}'s test ${b.test?.file ?? ""} fails: ${b.testOutcome ?? ""}`;
  return "test-integrity";
}
