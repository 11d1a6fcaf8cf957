import type { EventBus } from "../pipeline/event-bus.js";

export interface ProgressOptions {
  write: (line: string) => void;
  now?: () => Date;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** Plain progress: one timestamped line per story event and stage result. */
export function wireProgress(bus: EventBus, options: ProgressOptions): () => void {
  const stamp = () => (options.now?.() ?? new Date()).toISOString().slice(11, 19);
  const say = (text: string) => options.write(`[${stamp()}] ${text}\n`);
  const offs = [
    bus.on("run:start", "progress", (e) =>
      say(`run ${e.runId}: feature ${e.feature}, ${e.totalStories} stories`),
    ),
    bus.on("story:start", "progress", (e) => say(`${e.story.id} start — ${e.story.title} (tier ${e.tier})`)),
    bus.on("stage:exit", "progress", (e) => {
      const r = e.result;
      const why = "reason" in r ? `: ${r.reason}` : "";
      const to = r.action === "retry" ? ` from ${r.fromStage}` : "";
      say(`${e.storyId} ${e.stage} → ${r.action}${to}${why} (${seconds(e.durationMs)})`);
    }),
    bus.on("verify:result", "progress", (e) =>
      say(
        `${e.storyId} ${e.strategy} tests: ${e.status} (${e.passCount} passed, ${e.failCount} failed, ${e.skipCount} skipped; ${e.runner})${e.reason ? ` — ${e.reason}` : ""}`,
      ),
    ),
    bus.on("review:result", "progress", (e) =>
      say(
        `${e.storyId} review: ${e.checks.map((c) => `${c.name} ${c.success ? "ok" : "failed"}`).join(", ") || "no checks configured"}`,
      ),
    ),
    bus.on("escalation:tier-change", "progress", (e) =>
      say(`${e.storyId} escalate ${e.from} → ${e.to}: ${e.reason}`),
    ),
    bus.on("escalation:exhausted", "progress", (e) =>
      say(`${e.storyId} every tier tried (${e.attempts} passes)`),
    ),
    bus.on("story:complete", "progress", (e) =>
      say(
        `${e.story.id} PASSED in ${seconds(e.metrics.durationMs)} (${e.metrics.agentCalls} agent sessions, tier ${e.metrics.tier})`,
      ),
    ),
    bus.on("story:fail", "progress", (e) => say(`${e.story.id} FAILED: ${e.reason}`)),
    bus.on("story:skip", "progress", (e) =>
      say(`${e.story.id} ${e.story.status.toUpperCase()}: ${e.reason}`),
    ),
    bus.on("run:pause", "progress", (e) => say(`run paused: ${e.reason}`)),
    bus.on("run:error", "progress", (e) => say(`run error: ${e.error.message}`)),
    bus.on("run:complete", "progress", (e) => {
      const s = e.summary;
      say(
        `run complete: ${s.passed} passed, ${s.failed} failed, ${s.blocked} blocked, ${s.skipped} skipped, ${s.paused} paused in ${seconds(s.durationMs)}, cost $${s.costUsd.toFixed(2)}`,
      );
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
