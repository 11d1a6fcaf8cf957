import type { EventOf } from "../model/events.js";
import { oneLine } from "../util/text.js";
import { seconds } from "./format.js";
import type { RunModel } from "./run-model.js";
import { failedBefore, stageOutcome, stageVerdict } from "./stage-verdict.js";
import type { EventArgs } from "./types.js";

/** `[05:06:07] `: the time of day, UTC, as progress lines start. */
export const stamp = (at: Date): string => `[${at.toISOString().slice(11, 19)}] `;

/**
 * The progress line for an event, as `progressLine`, where `model` has already applied it: a stage's verdict also
 * counts the gates judged during the stage (a verify whose test-integrity failed, an inline regression that sends
 * the pass back). Used by the `default` reporter when it is not drawing a live view.
 */
/** What follows a merge that was not made (story:merge's `next`). */
export const MERGE_NEXT = {
  ask: "merge-conflict asks what to do",
  retry: "it runs again on the new tip (merge-conflict's fallback, retry)",
  fail: "it already ran again on a new tip, so it fails",
} as const;

export function progressLineIn(model: RunModel, ...args: EventArgs): string | undefined {
  const [type, e] = args;
  if (type !== "stage:exit") return progressLine(...args);
  const record = model.stories.get(e.storyId)?.stages.at(-1);
  return record ? stageLine(e, record) : progressLine(...args);
}

/**
 * The plain progress line for an event, without the time stamp, or undefined for events that get none. A stage's
 * verdict is read from its exit alone here (what it asked for, and whether it led to rectify or autofix).
 */
export function progressLine(...[type, e]: EventArgs): string | undefined {
  switch (type) {
    case "run:start":
      return `run ${e.runId}: feature ${e.feature}, ${e.totalStories} stories`;
    case "story:start":
      return `${e.story.id} start — ${oneLine(e.story.title)} (tier ${e.tier})`;
    case "stage:exit": {
      const r = e.result;
      const verdict = stageVerdict(r.action, failedBefore(e.next));
      return stageLine(e, {
        verdict,
        action: r.action,
        ...(e.next ? { next: e.next } : {}),
        ...(r.action === "retry" ? { fromStage: r.fromStage } : {}),
      });
    }
    case "verify:result": {
      // An unreadable verdict's reason starts with its status; the line already says it once.
      const reason = e.reason?.startsWith(`${e.status}: `) ? e.reason.slice(e.status.length + 2) : e.reason;
      return `${e.storyId} ${testsLabel(e.strategy, e.scope)}: ${e.status} (${e.passCount} passed, ${e.failCount} failed, ${e.skipCount} skipped; ${e.runner})${reason ? ` — ${oneLine(reason)}` : ""}`;
    }
    case "review:result":
      return `${e.storyId} review: ${e.checks.map((c) => `${c.name} ${c.success ? "ok" : "failed"}`).join(", ") || "no checks configured"}`;
    case "story-check:result":
      return `${e.storyId} story-check ${PHASE[e.phase]}: ${e.checks.map(checkOutcome).join(", ") || "no checks"}`;
    case "readiness:result": {
      // A verdict carried onto the tree to commit was shown when it was judged.
      if (e.gaps.length === 0 || e.carriedFrom) return undefined;
      const gaps = e.gaps.map((g) => `${g.code}${g.severity === "warning" ? " (warning)" : ""}`).join(", ");
      const accepted = e.accepted.length > 0 ? `; accepted: ${e.accepted.join(", ")}` : "";
      return `${e.storyId} readiness ${e.verdict}: ${gaps}${accepted}`;
    }
    case "escalation:tier-change":
      return `${e.storyId} escalate ${e.from} → ${e.to}: ${oneLine(e.reason)}`;
    case "escalation:exhausted":
      return `${e.storyId} every tier tried (${e.attempts} passes)`;
    case "story:complete":
      return `${e.story.id} ${e.inWorktree ? "passed in its worktree" : "PASSED"} in ${seconds(e.metrics.durationMs)} (${plural(e.metrics.agentCalls, "agent session")}, tier ${e.metrics.tier})${e.inWorktree ? "; merging it into the feature branch" : ""}`;
    case "story:fail":
      return `${e.story.id} FAILED: ${oneLine(e.reason)}`;
    case "story:skip":
      return `${e.story.id} ${e.story.status.toUpperCase()}: ${oneLine(withoutStatus(e.reason, e.story.status))}`;
    case "worktree:setup":
      return e.phase === "start"
        ? `${e.storyId} setting up its worktree: ${oneLine(e.command, 100)}`
        : `${e.storyId} worktree setup ${e.ok ? "done" : "failed"} (${seconds(e.durationMs ?? 0)})`;
    case "story:merge":
      return e.outcome === "merged"
        ? `${e.storyId} merged into the feature branch (${(e.sha ?? "").slice(0, 12)})`
        : `${e.storyId} did not merge: ${oneLine(e.reason ?? "")}${e.next ? `; ${MERGE_NEXT[e.next]}` : ""}`;
    // A question waiting, and how it was answered: a log that is no terminal says why the run is quiet.
    case "interaction:request":
      return `asks (${e.trigger}${e.storyId ? `, ${e.storyId}` : ""}): ${oneLine(e.summary)} [${e.options.join(", ")}]`;
    case "interaction:response":
      return `answered ${e.trigger}: ${e.action} (${e.respondedBy})`;
    case "run:control":
      return `control ${e.action}${e.storyId ? ` ${e.storyId}` : ""} (${e.by})`;
    case "run:pause":
      return `run paused: ${oneLine(e.reason)}`;
    case "run:error":
      return `run error: ${oneLine(e.error.message)}`;
    case "run:complete": {
      const s = e.summary;
      return `run complete: ${s.passed} passed, ${s.failed} failed, ${s.blocked} blocked, ${s.skipped} skipped, ${s.paused} paused in ${seconds(s.durationMs)}, cost $${s.costUsd.toFixed(2)}`;
    }
    default:
      return undefined;
  }
}

/** `US-001 verify fail → rectify (1.5s)`, with the stage's reason when it gave one. */
function stageLine(e: EventOf<"stage:exit">, record: Parameters<typeof stageOutcome>[0]): string {
  const why = "reason" in e.result ? `: ${oneLine(e.result.reason)}` : "";
  return `${e.storyId} ${e.stage} ${stageOutcome(record)}${why} (${seconds(e.durationMs)})`;
}

/** `1 agent session`, `2 agent sessions`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** `blocked: depends on US-002` after `BLOCKED:` would say it twice. */
function withoutStatus(reason: string, status: string): string {
  return reason.startsWith(`${status}: `) ? reason.slice(status.length + 2) : reason;
}

/** `scoped tests`, or `tests (full suite: no testScoped command)` when the scoped step ran the whole suite. */
function testsLabel(strategy: string, scope: string | undefined): string {
  if (!scope) return `${strategy} tests`;
  if (strategy === "scoped" && scope.startsWith("full suite")) return `tests (${scope})`;
  return `${strategy} tests (${scope})`;
}

/** When the between-stories check ran: on the committed app before the story, on its tree before the commit, after a merge. */
const PHASE: Record<EventOf<"story-check:result">["phase"], string> = {
  entry: "before the story",
  exit: "on the tree to commit",
  merge: "after the merge",
};

/** `build ok`, `smoke failed (never printed /ready/; printed "boom")`. */
function checkOutcome(check: EventOf<"story-check:result">["checks"][number]): string {
  if (check.success) return `${check.name} ok`;
  const why = check.timedOut
    ? "timed out"
    : check.expect && !check.matched
      ? `never printed /${check.expect}/`
      : `exit code ${check.exitCode}`;
  const first = check.output
    .split("\n")
    .map((l) => oneLine(l).trim())
    .find((l) => l && !l.startsWith("[gantry: "));
  const printed = first
    ? `; printed ${JSON.stringify(first.length > 120 ? `${first.slice(0, 120)}…` : first)}`
    : "";
  return `${check.name} failed (${why}${printed})`;
}
