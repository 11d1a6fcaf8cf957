import { oneLine } from "../util/text.js";
import { seconds } from "./format.js";
import { type RunModel, stageOutcome } from "./run-model.js";
import type { EventArgs } from "./types.js";

/** `[05:06:07] `: the time of day, UTC, as progress lines start. */
export const stamp = (at: Date): string => `[${at.toISOString().slice(11, 19)}] `;

/**
 * The plain progress line for an event, without the time stamp, or undefined for events that get none.
 * `model` has already applied the event: a stage's line shows its verdict, which its own exit does not carry.
 * Used by the `default` reporter when it is not drawing a live view.
 */
export function progressLine([type, e]: EventArgs, model: RunModel): string | undefined {
  switch (type) {
    case "run:start":
      return `run ${e.runId}: feature ${e.feature}, ${e.totalStories} stories`;
    case "story:start":
      return `${e.story.id} start — ${oneLine(e.story.title)} (tier ${e.tier})`;
    case "stage:exit": {
      const r = e.result;
      const why = "reason" in r ? `: ${oneLine(r.reason)}` : "";
      const record = model.stories.get(e.storyId)?.stages.at(-1);
      const outcome = record ? stageOutcome(record) : r.action;
      return `${e.storyId} ${e.stage} ${outcome}${why} (${seconds(e.durationMs)})`;
    }
    case "verify:result":
      return `${e.storyId} ${e.strategy} tests: ${e.status} (${e.passCount} passed, ${e.failCount} failed, ${e.skipCount} skipped; ${e.runner})${e.reason ? ` — ${oneLine(e.reason)}` : ""}`;
    case "review:result":
      return `${e.storyId} review: ${e.checks.map((c) => `${c.name} ${c.success ? "ok" : "failed"}`).join(", ") || "no checks configured"}`;
    case "escalation:tier-change":
      return `${e.storyId} escalate ${e.from} → ${e.to}: ${oneLine(e.reason)}`;
    case "escalation:exhausted":
      return `${e.storyId} every tier tried (${e.attempts} passes)`;
    case "story:complete":
      return `${e.story.id} PASSED in ${seconds(e.metrics.durationMs)} (${plural(e.metrics.agentCalls, "agent session")}, tier ${e.metrics.tier})`;
    case "story:fail":
      return `${e.story.id} FAILED: ${oneLine(e.reason)}`;
    case "story:skip":
      return `${e.story.id} ${e.story.status.toUpperCase()}: ${oneLine(withoutStatus(e.reason, e.story.status))}`;
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

/** `1 agent session`, `2 agent sessions`. */
export const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** `blocked: depends on US-002` after `BLOCKED:` would say it twice. */
function withoutStatus(reason: string, status: string): string {
  return reason.startsWith(`${status}: `) ? reason.slice(status.length + 2) : reason;
}
