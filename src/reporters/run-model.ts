import { GATE_OF_STRATEGY, RUN_SCOPE } from "../ledger/entry.js";
import { PASSING } from "../ledger/gate-rule.js";
import { countEnds, type EndStatus, type RunSummary } from "../model/run.js";
import type { StoryRecord, VerdictRecord } from "./run-records.js";
import { failedBefore, stageVerdict } from "./stage-verdict.js";
import { StoryFold } from "./story-fold.js";
import type { EventArgs } from "./types.js";
import {
  type Evidence,
  evidenceLines,
  reviewDecisionEvidence,
  reviewEvidence,
  storyCheckEvidence,
  verifyEvidence,
} from "./verdict-evidence.js";

/**
 * What a run looked like, built from its events: the state file reporters (junit, markdown, html, github) render.
 * Each reporter keeps its own, so one reporter's failure cannot spoil another's report.
 */
export class RunModel {
  runId = "";
  feature = "";
  totalStories = 0;
  startedAt?: string;
  endedAt?: string;
  summary?: RunSummary;
  exitCode?: number;
  pauseReason?: string;
  error?: string;
  costUsd = 0;
  readonly stories = new Map<string, StoryRecord>();
  /** Verdicts about the whole run (deferred regression, acceptance). */
  readonly runVerdicts: VerdictRecord[] = [];
  // A verdict is announced while the result that caused it is being delivered, so either may arrive first:
  // pair them in order, per story and gate.
  private readonly unpaired = new Map<string, { verdicts: VerdictRecord[]; evidence: Evidence[] }>();
  // Each story's status and passes, counted as every view of a run counts them.
  private readonly fold = new StoryFold();
  // Per story, whether a gate judged during the stage running now did not pass.
  private readonly stageFailed = new Map<string, boolean>();

  apply(...args: EventArgs): void {
    const [type, e] = args;
    this.runId ||= e.runId;
    switch (type) {
      case "run:start":
        Object.assign(this, { feature: e.feature, totalStories: e.totalStories, startedAt: e.at });
        break;
      case "story:start":
        this.fold.apply(this.story(e.story.id, e.story.title), ...args);
        this.story(e.story.id).startedAt = e.at;
        break;
      case "stage:enter":
        this.fold.apply(this.story(e.storyId), ...args);
        this.stageFailed.set(e.storyId, false);
        break;
      case "story:merge":
        this.fold.apply(this.story(e.storyId), ...args);
        break;
      case "stage:exit": {
        const r = e.result;
        const story = this.story(e.storyId);
        story.stages.push({
          pass: Math.max(1, story.attempts),
          ...(story.tier ? { tier: story.tier } : {}),
          stage: e.stage,
          verdict: stageVerdict(r.action, this.stageFailed.get(e.storyId) === true || failedBefore(e.next)),
          action: r.action,
          ...(e.next ? { next: e.next } : {}),
          durationMs: e.durationMs,
          at: e.at,
          ...("reason" in r ? { reason: r.reason } : {}),
          ...(r.action === "retry" ? { fromStage: r.fromStage } : {}),
        });
        break;
      }
      case "agent:end": {
        this.costUsd += e.costUsd;
        if (e.storyId === RUN_SCOPE) break;
        const story = this.story(e.storyId);
        story.costUsd += e.costUsd;
        story.agentCalls += 1;
        story.sessions.push({
          role: e.role,
          tier: e.tier,
          exitCode: e.exitCode,
          ...(e.outputFile ? { outputFile: e.outputFile } : {}),
        });
        break;
      }
      case "escalation:tier-change":
      case "escalation:exhausted":
        this.fold.apply(this.story(e.storyId), ...args);
        break;
      case "story:complete":
        Object.assign(this.end(e.story.id, e.story.title, e.at, args), {
          durationMs: e.metrics.durationMs,
          costUsd: e.metrics.costUsd,
          agentCalls: e.metrics.agentCalls,
        });
        break;
      case "story:fail":
      case "story:skip":
        this.end(e.story.id, e.story.title, e.at, args);
        break;
      case "gate:verdict":
        if (!PASSING.has(e.verdict) && this.stageFailed.has(e.storyId)) this.stageFailed.set(e.storyId, true);
        this.pair(e.storyId, e.gate, { verdict: { entry: e, evidence: [] } });
        break;
      case "verify:result":
        this.pair(e.storyId, GATE_OF_STRATEGY[e.strategy], { evidence: verifyEvidence(e) });
        break;
      case "review:result":
        this.pair(e.storyId, "review", { evidence: reviewEvidence(e) });
        break;
      case "review-decision:result":
        this.pair(e.storyId, "review-decision", { evidence: reviewDecisionEvidence(e) });
        break;
      case "story-check:result":
        this.pair(e.storyId, "story-check", { evidence: storyCheckEvidence(e) });
        break;
      case "run:pause":
        // The story in flight is left paused; no story event says so.
        this.pauseReason = e.reason;
        for (const story of this.stories.values())
          if (story.status === "in-progress") Object.assign(story, { status: "paused", stage: undefined });
        break;
      case "run:error":
        this.error = e.error.message;
        break;
      case "run:complete":
        Object.assign(this, { summary: e.summary, exitCode: e.exitCode, endedAt: e.at });
        break;
    }
  }

  /** Stories in the order they were first heard of. */
  list(): StoryRecord[] {
    return [...this.stories.values()];
  }

  /** How many stories ended in each status, from the summary when the run completed. */
  counts(): Record<EndStatus, number> {
    if (this.summary) return this.summary;
    return countEnds(this.list().map((r) => r.status));
  }

  durationMs(): number | undefined {
    if (this.summary) return this.summary.durationMs;
    return this.startedAt && this.endedAt ? Date.parse(this.endedAt) - Date.parse(this.startedAt) : undefined;
  }

  private story(id: string, title?: string): StoryRecord {
    let record = this.stories.get(id);
    if (!record) {
      record = {
        id,
        title: title ?? id,
        status: "pending",
        attempts: 0,
        costUsd: 0,
        agentCalls: 0,
        stages: [],
        verdicts: [],
        sessions: [],
      };
      this.stories.set(id, record);
    } else if (title) record.title = title;
    return record;
  }

  /** A story's end: its status, passes and reason from the fold, and when it ended. */
  private end(id: string, title: string, at: string, args: EventArgs): StoryRecord {
    const story = this.story(id, title);
    this.fold.apply(story, ...args);
    story.endedAt = at;
    if (story.startedAt && story.durationMs === undefined)
      story.durationMs = Date.parse(at) - Date.parse(story.startedAt);
    return story;
  }

  private pair(storyId: string, gate: string, item: { verdict?: VerdictRecord; evidence?: Evidence }): void {
    const key = `${storyId}\u0000${gate}`;
    const queue = this.unpaired.get(key) ?? { verdicts: [], evidence: [] };
    this.unpaired.set(key, queue);
    if (item.verdict) {
      (storyId === RUN_SCOPE ? this.runVerdicts : this.story(storyId).verdicts).push(item.verdict);
      queue.verdicts.push(item.verdict);
    }
    if (item.evidence) queue.evidence.push(item.evidence);
    while (queue.verdicts.length > 0 && queue.evidence.length > 0) {
      const verdict = queue.verdicts.shift() as VerdictRecord;
      const evidence = queue.evidence.shift() as Evidence;
      if (evidence.durationMs !== undefined) verdict.durationMs = evidence.durationMs;
      verdict.evidence = evidenceLines(evidence);
    }
  }
}
