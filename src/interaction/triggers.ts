import type { EventBus } from "../bus/event-bus.js";
import { type Config, type InteractionAction, TRIGGERS, type TriggerName } from "../config/schema.js";
import type { EventName, EventOf } from "../model/events.js";
import type { RunControl } from "../model/run-control.js";
import type { Story } from "../prd/story.js";
import { findingKey } from "../verification/strategies/test-integrity/allowance.js";

/** The share of `execution.costLimitUsd` at which `cost-warning` speaks, once a run. */
export const COST_WARNING_SHARE = 0.8;

export interface Question {
  storyId?: string;
  summary: string;
  options: InteractionAction[];
}

export interface TriggerDeps {
  config: Config;
  control: RunControl;
  stories: { get(id: string): Story | undefined };
  /**
   * Asks through the channel, announcing `interaction:request` / `interaction:response`; never throws.
   * Undefined when the run was interrupted while waiting: nothing is decided then, the run is stopping.
   */
  ask(trigger: TriggerName, question: Question): Promise<InteractionAction | undefined>;
}

export function triggerEnabled(config: Config, trigger: TriggerName): boolean {
  return config.interaction.triggers[trigger]?.enabled === true;
}

/** What a story trigger asks about one event: the story, the summary, and a key when it asks once per key. */
interface StoryQuestion {
  storyId: string;
  summary: string;
  once?: string;
}

/** A trigger that asks about one story: the event it watches and the question that event raises, if any. */
interface StoryTrigger<K extends EventName> {
  event: K;
  question(event: EventOf<K>, deps: TriggerDeps): StoryQuestion | undefined;
  /** Offers every action each time, and records the answer as it is (no once-only retry). */
  everyAction?: true;
}
const storyTrigger = <K extends EventName>(trigger: StoryTrigger<K>) => trigger;

const list = (items: string[]) => items.join(", ");

/** The triggers that ask about a story, each from one event. The cost triggers are the run's: below. */
const STORY_TRIGGERS: Partial<Record<TriggerName, StoryTrigger<EventName>>> = {
  "story-ambiguity": storyTrigger({
    event: "story:start",
    question: ({ story }, deps) =>
      (deps.stories.get(story.id)?.acceptanceCriteria ?? []).some((c) => c.trim() !== "")
        ? undefined
        : { storyId: story.id, summary: `${story.id} "${story.title}" has no acceptance criteria` },
  }),
  "human-review": storyTrigger({
    event: "escalation:exhausted",
    question: ({ storyId, attempts }) => ({
      storyId,
      summary: `${storyId} failed at every tier (${attempts} passes); a person may want to look`,
    }),
  }),
  "max-retries": storyTrigger({
    event: "stage:exit",
    question: ({ storyId, stage, result, retryLimit }) => {
      if (!retryLimit) return undefined;
      const summary =
        result.action === "retry"
          ? `${storyId}: MAX_STAGE_RETRIES (${retryLimit.max}) exceeded; last from ${stage}: ${result.reason}`
          : `${storyId}: ${"reason" in result ? result.reason : `${stage} ended the pass`}`;
      return { storyId, summary };
    },
  }),
  tamper: storyTrigger({
    event: "tamper:result",
    question: ({ storyId, role, changes, verdict }) => {
      if (verdict !== "fail") return undefined;
      const said = changes.map((c) => `${c.what}${c.restored ? " (put back)" : ""}`).join("; ");
      return { storyId, summary: `${storyId}: the ${role} session changed ${said}` };
    },
  }),
  "test-integrity": storyTrigger({
    event: "test-integrity:result",
    // Asked once per set of findings: rectify's next verify finding the same ones asks nothing new.
    question: ({ storyId, verdict, findings }) => {
      if (verdict !== "fail") return undefined;
      const said = findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""} ${f.kind}`).join("; ");
      return {
        storyId,
        summary: `${storyId} changed its tests: ${said}. approve allows exactly these; retry leaves them to rectify`,
        once: `${storyId}\n${findings.map(findingKey).sort().join("\n")}`,
      };
    },
    everyAction: true,
  }),
  "agent-blocked": storyTrigger({
    event: "stage:exit",
    question: ({ storyId, result }) =>
      result.action !== "fail" || result.agentBlocked === undefined
        ? undefined
        : { storyId, summary: `${storyId}: the agent is blocked: ${result.agentBlocked}` },
  }),
  "story-readiness": storyTrigger({
    event: "readiness:result",
    question: ({ storyId, gaps, gapSet, ask, accepted }) => {
      if (!ask) return undefined;
      const open = gaps
        .filter((g) => g.severity === "blocker" && !accepted.includes(g.code))
        .map((g) => `${g.code}: ${g.detail}`);
      return { storyId, summary: `${storyId} is not ready (${list(gapSet)}): ${open.join("; ")}` };
    },
  }),
  "story-check": storyTrigger({
    event: "story-check:result",
    question: ({ storyId, phase, verdict, checks }) => {
      if (phase !== "entry" || verdict !== "fail") return undefined;
      const failing = checks.filter((c) => !c.success).map((c) => `${c.name} (\`${c.command}\`)`);
      const summary = `before ${storyId}: the app the previous stories left fails ${list(failing)}; fix it with an autofix session (retry) or stop (abort)`;
      return { storyId, summary };
    },
  }),
  "merge-conflict": storyTrigger({
    event: "story:merge",
    question: ({ storyId, outcome, files, reason }) => {
      if (outcome === "merged") return undefined;
      const what =
        outcome === "conflict"
          ? `conflicts with the feature branch in ${list(files ?? [])}`
          : `fails on the merged tree: ${reason ?? ""}`;
      return { storyId, summary: `${storyId}: its worktree ${what}` };
    },
  }),
  "review-gate": storyTrigger({
    event: "review:result",
    // Once a pass: autofix re-runs review, and a person need not be asked after every attempt.
    question: ({ storyId, success, checks, attempt }) =>
      success
        ? undefined
        : {
            storyId,
            summary: `${storyId}: review failed (${list(checks.filter((c) => !c.success).map((c) => c.name))})`,
            once: `${storyId}#${attempt}`,
          },
  }),
} as Partial<Record<TriggerName, StoryTrigger<EventName>>>;

/**
 * Wires each enabled trigger to its event. A trigger asks, then records the answer through RunControl;
 * the run acts on it at its next boundary (the story executor, after `bus.flush()`). Each handler returns
 * its promise, so that flush is what waits for the answer.
 */
export function wireTriggers(bus: EventBus, deps: TriggerDeps): () => void {
  const { config, control } = deps;
  /** `trigger:story` once given a retry: retry is offered once per story and trigger in a run. */
  const retried = new Set<string>();
  const offered = (trigger: TriggerName, storyId?: string): InteractionAction[] =>
    TRIGGERS[trigger].actions.filter(
      (action) =>
        !(action === "retry" && retried.has(`${trigger}:${storyId}`)) &&
        !(
          action === "approve" &&
          trigger === "cost-exceeded" &&
          !config.interaction.triggers[trigger]?.raiseUsd
        ),
    );

  const offs: (() => void)[] = [];
  for (const [name, trigger] of Object.entries(STORY_TRIGGERS) as [TriggerName, StoryTrigger<EventName>][]) {
    if (!triggerEnabled(config, name)) continue;
    const asked = new Set<string>();
    offs.push(
      bus.on(trigger.event, `interaction ${name}`, async (event) => {
        const question = trigger.question(event, deps);
        if (!question || (question.once !== undefined && asked.has(question.once))) return;
        if (question.once !== undefined) asked.add(question.once);
        const { storyId, summary } = question;
        const options = trigger.everyAction ? [...TRIGGERS[name].actions] : offered(name, storyId);
        const action = await deps.ask(name, { storyId, summary, options });
        if (action === undefined) return;
        if (action === "retry" && !trigger.everyAction) retried.add(`${name}:${storyId}`);
        control.decide(storyId, name, action);
      }),
    );
  }
  if (triggerEnabled(config, "cost-warning")) offs.push(wireCostWarning(bus, deps, offered("cost-warning")));
  if (triggerEnabled(config, "cost-exceeded"))
    offs.push(wireCostExceeded(bus, deps, () => offered("cost-exceeded")));
  return () => {
    for (const off of offs) off();
  };
}

/** `cost-warning`: once a run, when the cost passes COST_WARNING_SHARE of the limit; nothing is decided. */
function wireCostWarning(bus: EventBus, deps: TriggerDeps, options: InteractionAction[]): () => void {
  let warned = false;
  return bus.on("run:cost-check", "interaction cost-warning", async ({ costUsd, limitUsd }) => {
    if (warned || limitUsd <= 0 || costUsd < limitUsd * COST_WARNING_SHARE || costUsd >= limitUsd) return;
    warned = true;
    const summary = `cost $${costUsd.toFixed(2)} is over ${COST_WARNING_SHARE * 100}% of the limit $${limitUsd.toFixed(2)}`;
    await deps.ask("cost-warning", { summary, options });
  });
}

/** `cost-exceeded`: the run pauses at the limit unless a person approves raising it by `raiseUsd`. */
function wireCostExceeded(bus: EventBus, deps: TriggerDeps, options: () => InteractionAction[]): () => void {
  let asking = false;
  return bus.on("run:cost-check", "interaction cost-exceeded", async ({ costUsd, limitUsd }) => {
    if (asking || limitUsd <= 0 || costUsd < limitUsd) return;
    asking = true;
    try {
      const raise = deps.config.interaction.triggers["cost-exceeded"]?.raiseUsd ?? 0;
      const summary =
        `cost $${costUsd.toFixed(2)} reached the limit $${limitUsd.toFixed(2)}; the run pauses` +
        (raise > 0 ? ` unless approved to go on with the limit raised by $${raise.toFixed(2)}` : "");
      const action = await deps.ask("cost-exceeded", { summary, options: options() });
      if (action === "approve" && raise > 0) deps.control.raiseCostLimit(raise);
      else if (action !== undefined) deps.control.decide(undefined, "cost-exceeded", "abort");
    } finally {
      asking = false;
    }
  });
}
