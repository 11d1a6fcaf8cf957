import type { StoryStatus } from "../model/story.js";
import { pluginsOf } from "../plugins/registry.js";
import type { Story } from "../prd/story.js";
import { summarize } from "../prd/story.js";
import type { RunContext, StoryContext } from "../stages/context.js";
import { STORY_STAGES } from "../stages/index.js";
import { readinessGate } from "../stages/readiness.js";
import { decideRoute, type PassRoute } from "../stages/route.js";
import type { Stage } from "../stages/stage.js";
import { type PassOutcome, runStages } from "./runner.js";
import { dropDecisions, settle, takeDecision, withInteraction } from "./story-decisions.js";
import { checkBeforeStory } from "./story-entry-check.js";
import { climb, startTier, TierLadder } from "./tier-ladder.js";

export interface StoryOutcome {
  status: Extract<StoryStatus, "passed" | "failed" | "skipped" | "blocked" | "paused">;
  reason?: string;
  agentCalls: number;
}

/**
 * Carries one story through the stages, in passes: starts at the tier its complexity maps to, and on
 * `escalate` runs again at that tier while it has attempts left (`routing.attemptsPerTier`), then one tier
 * up (tier-ladder.ts); past the top tier the story fails (`escalation:exhausted`).
 * Interaction answers (story-decisions.ts) may skip it, pause the run, or give it one more pass.
 * `storyStages` are the pipeline's stages unless a caller (a test) brings its own.
 */
export async function executeStory(
  run: RunContext,
  story: Story,
  storyStages: readonly Stage[] = STORY_STAGES,
): Promise<StoryOutcome> {
  const started = performance.now();
  const begun = await beginStory(run, story);
  if ("status" in begun) return begun;
  return runPasses(run, begun.ctx, begun.ladder, withInteraction(storyStages, run), started);
}

/**
 * A story's start, before its first pass: its dependencies, its routing and starting tier, `story:start`,
 * then what may stop it before any session (a hook's veto, story-ambiguity, the entry check, readiness).
 */
async function beginStory(
  run: RunContext,
  story: Story,
): Promise<StoryOutcome | { ctx: StoryContext; ladder: TierLadder }> {
  const { bus, config, stories } = run;
  const unmet = story.dependencies.filter((dep) => stories.status(dep) !== "passed");
  if (unmet.length > 0) {
    const reason = `blocked: depends on ${unmet.map((d) => `${d} (${stories.status(d)})`).join(", ")}`;
    stories.update(story.id, { status: "blocked", failureReason: reason });
    bus.emit("story:skip", { story: summarize(story), reason });
    return { status: "blocked", reason, agentCalls: 0 };
  }
  const route = await routePass(run, story);
  const ladder = TierLadder.from(config, route.decision.tier);
  const ctx: StoryContext = {
    run,
    story,
    logger: run.logger.child({ storyId: story.id }),
    tier: ladder.tier,
    route,
    pass: story.attempts ?? 0,
    baseSha: await run.git.head(),
    failureHistory: [],
    rectifyAttempts: 0,
    autofixAttempts: 0,
    agentCalls: 0,
    costUsd: 0,
    ...(story.status === "paused" || story.status === "in-progress"
      ? { resumedPass: (story.attempts ?? 0) + 1 }
      : {}),
  };
  // Written with the next write of each file (prd.json: the pass's attempts, a few lines on).
  run.state.defer({ currentStory: story.id });
  stories.defer(story.id, { status: "in-progress" });
  dropDecisions(run, story.id);
  const { complexity, testStrategy, reason } = route.decision;
  bus.emit("story:start", {
    story: summarize(story),
    tier: ctx.tier,
    routing: { complexity, testStrategy, reason },
  });
  await bus.flush();
  const veto = run.requests.vetoes.get(story.id);
  if (veto !== undefined) return skip(run, story, `vetoed by the on-story-start hook: ${veto}`);
  const ambiguity = takeDecision(run, story.id, "story-ambiguity");
  if (ambiguity === "skip")
    return skip(run, story, "no acceptance criteria; interaction story-ambiguity: skip");
  if (ambiguity === "abort") return pause(run, ctx, "interaction story-ambiguity answered abort");
  const broken = await checkBeforeStory(ctx);
  if (broken) return pause(run, ctx, broken);
  const notReady = await readinessGate(ctx, {
    ...(ambiguity === "approve" ? { accepted: ["no-acceptance-criteria"] } : {}),
    askedAnswer: async (trigger) => {
      await bus.flush();
      return takeDecision(run, story.id, trigger);
    },
  });
  if (notReady?.status === "paused") return pause(run, ctx, notReady.reason);
  if (notReady?.status === "skipped") return skip(run, story, notReady.reason, ctx);
  if (notReady) return park(run, ctx, notReady.reason);
  return { ctx, ladder };
}

/** The story's passes, climbing the tier ladder, until one passes or the story ends otherwise. */
async function runPasses(
  run: RunContext,
  ctx: StoryContext,
  ladder: TierLadder,
  stages: readonly Stage[],
  started: number,
): Promise<StoryOutcome> {
  const { bus, config, stories } = run;
  const { story } = ctx;
  const retried = new Set<string>();
  for (let passes = 0; passes < ladder.maxPasses(); passes++) {
    if (run.state.data.iterations >= config.execution.maxIterations) {
      return pause(run, ctx, `execution.maxIterations (${config.execution.maxIterations}) reached`);
    }
    // A pass's start is not written to state.json: resume reads neither the count nor the story there (it
    // reads prd.json), and the previous commit's marker, left until the next write, is reconciled from git.
    run.state.defer({ iterations: run.state.data.iterations + 1 });
    ladder.enterPass();
    // The first pass's routing was decided above (it chose the starting tier): routers are asked once a pass.
    if (passes > 0) ctx.route = await routePass(run, story);
    Object.assign(ctx, {
      pass: ctx.pass + 1,
      verify: undefined,
      integrity: undefined,
      review: undefined,
      failureHistory: [],
      rectifyAttempts: 0,
      autofixAttempts: 0,
    });
    // On disk before the pass's first session (its guard waits for it), written while routing and the guard's
    // git snapshot run; the content synced before the rename, the folder not (a pass's start).
    stories.updateSoon(story.id, { attempts: ctx.pass });
    const outcome = await runStages(stages, ctx, {
      bus,
      maxStageRetries: config.execution.maxStageRetries,
      signal: run.signal,
    });
    switch (outcome.action) {
      case "continue": {
        const metrics = {
          durationMs: Math.round(performance.now() - started),
          costUsd: ctx.costUsd,
          attempts: ctx.pass,
          tier: ctx.tier,
          agentCalls: ctx.agentCalls,
        };
        bus.emit("story:complete", {
          story: summarize(story),
          metrics,
          ...(run.mergesBack ? { inWorktree: true } : {}),
        });
        return { status: "passed", agentCalls: ctx.agentCalls };
      }
      case "escalate": {
        if (await climb(run, ctx, ladder, outcome.reason)) continue;
        bus.emit("escalation:exhausted", { storyId: story.id, attempts: ctx.pass });
        if ((await settle(run, story.id, "human-review", retried)) === "retry") {
          ladder.restart();
          await startTier(run, ctx, ladder.tier);
          continue;
        }
        return fail(run, ctx, `every tier failed; last: ${outcome.reason}`);
      }
      case "fail": {
        const ended = await failedPass(run, ctx, outcome, retried);
        if (ended === "retry") continue;
        return ended;
      }
      case "skip":
        return skip(run, story, outcome.reason, ctx);
      case "pause":
        return pause(run, ctx, outcome.reason);
    }
  }
  return fail(run, ctx, "no tier left");
}

/**
 * A pass that failed: the answer to the trigger that fits (agent-blocked, tamper, max-retries) may give the
 * story another pass at the same tier, skip it or pause the run; otherwise the story fails. More expensive
 * tiers would not unblock a missing decision or undo a tamper, so there is no climb here.
 */
async function failedPass(
  run: RunContext,
  ctx: StoryContext,
  outcome: Extract<PassOutcome, { action: "fail" }>,
  retried: Set<string>,
): Promise<StoryOutcome | "retry"> {
  const { story } = ctx;
  const trigger =
    outcome.agentBlocked !== undefined ? "agent-blocked" : outcome.tamper ? "tamper" : "max-retries";
  const asked = trigger !== "max-retries" || outcome.retryLimit;
  const answer = asked ? await settle(run, story.id, trigger, retried) : undefined;
  if (answer === "retry") return "retry";
  if (answer === "skip" && trigger !== "tamper")
    return skip(run, story, `${outcome.reason}; interaction ${trigger}: skip`, ctx);
  if (answer === "abort" && trigger !== "max-retries")
    return pause(run, ctx, `${outcome.reason}; interaction ${trigger}: abort`);
  return fail(run, ctx, outcome.reason);
}

async function fail(run: RunContext, ctx: StoryContext, reason: string): Promise<StoryOutcome> {
  const stash = await run.git.setAside(`gantry(${ctx.story.id}) failed work, run ${run.runId}`);
  const kept = stash ? `; its changes were kept in git stash ${stash.slice(0, 12)}` : "";
  run.stories.update(ctx.story.id, { status: "failed", failureReason: reason, costUsd: ctx.costUsd });
  run.bus.emit("story:fail", { story: summarize(ctx.story), reason: `${reason}${kept}` });
  return { status: "failed", reason, agentCalls: ctx.agentCalls };
}

/** A story skipped after work began has that work set aside, as a failed one has: the next story starts clean. */
async function skip(
  run: RunContext,
  story: Story,
  reason: string,
  ctx?: StoryContext,
): Promise<StoryOutcome> {
  const stash = ctx
    ? await run.git.setAside(`gantry(${story.id}) skipped work, run ${run.runId}`)
    : undefined;
  const kept = stash ? `; its changes were kept in git stash ${stash.slice(0, 12)}` : "";
  run.stories.update(story.id, { status: "skipped", failureReason: reason });
  run.bus.emit("story:skip", { story: summarize(story), reason: `${reason}${kept}` });
  return { status: "skipped", reason, agentCalls: ctx?.agentCalls ?? 0 };
}

/** A story the readiness gate stopped before any session: blocked until its text or an answer changes. */
function park(run: RunContext, ctx: StoryContext, reason: string): StoryOutcome {
  run.stories.update(ctx.story.id, { status: "blocked", failureReason: reason });
  run.bus.emit("story:skip", { story: summarize(ctx.story), reason });
  return { status: "blocked", reason, agentCalls: ctx.agentCalls };
}

function pause(run: RunContext, ctx: StoryContext, reason: string): StoryOutcome {
  run.stories.update(ctx.story.id, { status: "paused", costUsd: ctx.costUsd });
  return { status: "paused", reason, agentCalls: ctx.agentCalls };
}

function routePass(run: RunContext, story: Story): Promise<PassRoute> {
  return decideRoute(story, run.config, pluginsOf(run).routers, run.signal);
}
