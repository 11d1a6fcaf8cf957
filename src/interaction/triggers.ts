import type { EventBus } from "../bus/event-bus.js";
import { type Config, type InteractionAction, TRIGGERS, type TriggerName } from "../config/schema.js";
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

/**
 * Wires each enabled trigger to its event. A trigger asks, then records the answer through RunControl;
 * the run acts on it at its next boundary (the story executor, after `bus.flush()`). Each handler returns
 * its promise, so that flush is what waits for the answer.
 */
export function wireTriggers(bus: EventBus, deps: TriggerDeps): () => void {
  const { config, control } = deps;
  const on = (trigger: TriggerName, wire: () => () => void) =>
    triggerEnabled(config, trigger) ? [wire()] : [];
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
  const decideForStory = async (trigger: TriggerName, storyId: string, summary: string) => {
    const action = await deps.ask(trigger, { storyId, summary, options: offered(trigger, storyId) });
    if (action === undefined) return;
    if (action === "retry") retried.add(`${trigger}:${storyId}`);
    control.decide(storyId, trigger, action);
  };

  const offs = [
    ...on("story-ambiguity", () =>
      bus.on("story:start", "interaction story-ambiguity", async ({ story }) => {
        const criteria = deps.stories.get(story.id)?.acceptanceCriteria ?? [];
        if (criteria.some((c) => c.trim() !== "")) return;
        await decideForStory(
          "story-ambiguity",
          story.id,
          `${story.id} "${story.title}" has no acceptance criteria`,
        );
      }),
    ),
    ...on("human-review", () =>
      bus.on("escalation:exhausted", "interaction human-review", async ({ storyId, attempts }) => {
        const summary = `${storyId} failed at every tier (${attempts} passes); a person may want to look`;
        await decideForStory("human-review", storyId, summary);
      }),
    ),
    ...on("max-retries", () =>
      bus.on("stage:exit", "interaction max-retries", async ({ storyId, stage, result, retryLimit }) => {
        if (!retryLimit) return;
        const summary =
          result.action === "retry"
            ? `${storyId}: MAX_STAGE_RETRIES (${retryLimit.max}) exceeded; last from ${stage}: ${result.reason}`
            : `${storyId}: ${"reason" in result ? result.reason : `${stage} ended the pass`}`;
        await decideForStory("max-retries", storyId, summary);
      }),
    ),
    ...on("tamper", () =>
      bus.on("tamper:result", "interaction tamper", async ({ storyId, role, changes, verdict }) => {
        if (verdict !== "fail") return;
        const said = changes.map((c) => `${c.what}${c.restored ? " (put back)" : ""}`).join("; ");
        await decideForStory("tamper", storyId, `${storyId}: the ${role} session changed ${said}`);
      }),
    ),
    ...on("test-integrity", () => {
      // Asked once per set of findings: rectify's next verify finding the same ones asks nothing new.
      const asked = new Set<string>();
      return bus.on(
        "test-integrity:result",
        "interaction test-integrity",
        async ({ storyId, verdict, findings }) => {
          const key = `${storyId}\n${findings.map(findingKey).sort().join("\n")}`;
          if (verdict !== "fail" || asked.has(key)) return;
          asked.add(key);
          const said = findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""} ${f.kind}`).join("; ");
          const summary = `${storyId} changed its tests: ${said}. approve allows exactly these; retry leaves them to rectify`;
          const action = await deps.ask("test-integrity", {
            storyId,
            summary,
            options: [...TRIGGERS["test-integrity"].actions],
          });
          if (action !== undefined) control.decide(storyId, "test-integrity", action);
        },
      );
    }),
    ...on("agent-blocked", () =>
      bus.on("stage:exit", "interaction agent-blocked", async ({ storyId, result }) => {
        if (result.action !== "fail" || result.agentBlocked === undefined) return;
        await decideForStory(
          "agent-blocked",
          storyId,
          `${storyId}: the agent is blocked: ${result.agentBlocked}`,
        );
      }),
    ),
    ...on("story-readiness", () =>
      bus.on(
        "readiness:result",
        "interaction story-readiness",
        async ({ storyId, gaps, gapSet, ask, accepted }) => {
          if (!ask) return;
          const open = gaps
            .filter((g) => g.severity === "blocker" && !accepted.includes(g.code))
            .map((g) => `${g.code}: ${g.detail}`);
          const summary = `${storyId} is not ready (${gapSet.join(", ")}): ${open.join("; ")}`;
          await decideForStory("story-readiness", storyId, summary);
        },
      ),
    ),
    ...on("story-check", () =>
      bus.on("story-check:result", "interaction story-check", async ({ storyId, phase, verdict, checks }) => {
        if (phase !== "entry" || verdict !== "fail") return;
        const failing = checks.filter((c) => !c.success).map((c) => `${c.name} (\`${c.command}\`)`);
        const summary = `before ${storyId}: the app the previous stories left fails ${failing.join(", ")}; fix it with an autofix session (retry) or stop (abort)`;
        await decideForStory("story-check", storyId, summary);
      }),
    ),
    ...on("merge-conflict", () =>
      bus.on("story:merge", "interaction merge-conflict", async ({ storyId, outcome, files, reason }) => {
        if (outcome === "merged") return;
        const what =
          outcome === "conflict"
            ? `conflicts with the feature branch in ${(files ?? []).join(", ")}`
            : `fails on the merged tree: ${reason ?? ""}`;
        await decideForStory("merge-conflict", storyId, `${storyId}: its worktree ${what}`);
      }),
    ),
    ...on("review-gate", () => {
      const asked = new Set<string>();
      return bus.on(
        "review:result",
        "interaction review-gate",
        async ({ storyId, success, checks, attempt }) => {
          // Once a pass: autofix re-runs review, and a person need not be asked after every attempt.
          if (success || asked.has(`${storyId}#${attempt}`)) return;
          asked.add(`${storyId}#${attempt}`);
          const failing = checks.filter((c) => !c.success).map((c) => c.name);
          await decideForStory("review-gate", storyId, `${storyId}: review failed (${failing.join(", ")})`);
        },
      );
    }),
    ...on("cost-warning", () => {
      let warned = false;
      return bus.on("run:cost-check", "interaction cost-warning", async ({ costUsd, limitUsd }) => {
        if (warned || limitUsd <= 0 || costUsd < limitUsd * COST_WARNING_SHARE || costUsd >= limitUsd) return;
        warned = true;
        const summary = `cost $${costUsd.toFixed(2)} is over ${COST_WARNING_SHARE * 100}% of the limit $${limitUsd.toFixed(2)}`;
        await deps.ask("cost-warning", { summary, options: offered("cost-warning") });
      });
    }),
    ...on("cost-exceeded", () => {
      let asking = false;
      return bus.on("run:cost-check", "interaction cost-exceeded", async ({ costUsd, limitUsd }) => {
        if (asking || limitUsd <= 0 || costUsd < limitUsd) return;
        asking = true;
        try {
          const raise = config.interaction.triggers["cost-exceeded"]?.raiseUsd ?? 0;
          const summary =
            `cost $${costUsd.toFixed(2)} reached the limit $${limitUsd.toFixed(2)}; the run pauses` +
            (raise > 0 ? ` unless approved to go on with the limit raised by $${raise.toFixed(2)}` : "");
          const action = await deps.ask("cost-exceeded", { summary, options: offered("cost-exceeded") });
          if (action === "approve" && raise > 0) control.raiseCostLimit(raise);
          else if (action !== undefined) control.decide(undefined, "cost-exceeded", "abort");
        } finally {
          asking = false;
        }
      });
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}
