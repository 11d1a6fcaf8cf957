import { runGit } from "../git/exec.js";
import { UNBORN } from "../git/repo.js";
import { recordVerdict } from "../ledger/record.js";
import type { StoryCheckRun } from "../model/events.js";
import type { Judged, Verdict } from "../model/ledger.js";
import type { ReviewCheck } from "../model/review.js";
import type { StageResult } from "../model/stage.js";
import { judgingWrapper } from "../process/judging-sandbox.js";
import { configuredChecks, runStoryChecks } from "../verification/story-check.js";
import { addScratchWorktree, commitOfTree } from "../verification/strategies/scratch-worktree.js";
import { outputHead } from "../verification/unreadable.js";
import { agentStep } from "./agent-step.js";
import type { StoryContext } from "./context.js";
import { gateFailure } from "./gate-feedback.js";

export interface StoryCheckOutcome {
  verdict: Verdict;
  checks: StoryCheckRun[];
  judged: Judged;
}

/**
 * The between-stories check (quality.commands build, smoke, demo) on a checkout of one tree: at `entry`
 * HEAD, the committed tree the story starts from; at `exit` (and `merge`) the tree to commit. Announced as
 * `story-check:result` (the ledger's `story-check` gate, bound to that tree). Undefined when none is set.
 */
export async function storyCheck(
  ctx: StoryContext,
  phase: "entry" | "exit" | "merge",
  exitTree?: Judged,
): Promise<StoryCheckOutcome | undefined> {
  const { run } = ctx;
  if (configuredChecks(run.config).length === 0) return undefined;
  let judged: Judged;
  let commit: string;
  if (exitTree) {
    judged = exitTree;
    commit = await commitOfTree(run.root, exitTree.tree, exitTree.sha === UNBORN ? undefined : exitTree.sha);
  } else {
    const head = await run.git.head();
    if (head === UNBORN) return undefined;
    judged = { sha: head, tree: (await runGit(run.root, ["rev-parse", `${head}^{tree}`])).trim() };
    commit = head;
  }
  const checkout = await addScratchWorktree(run.root, commit);
  let checks: StoryCheckRun[];
  try {
    checks = await runStoryChecks({
      config: run.config,
      cwd: checkout.projectDir,
      signal: run.signal,
      ...(run.judging ? { wrapper: judgingWrapper(run.judging, checkout.projectDir) } : {}),
    });
  } finally {
    await checkout.remove();
  }
  const verdict: Verdict = run.signal.aborted
    ? "unverified"
    : checks.every((c) => c.success)
      ? "pass"
      : "fail";
  recordVerdict(run, "story-check:result", {
    storyId: ctx.story.id,
    phase,
    verdict,
    checks,
    judged,
    attempt: ctx.pass,
  });
  return { verdict, checks, judged };
}

/** The failing checks in one message, each with the first lines it printed: `build (exit code 1; printed "…")`. */
export function failingChecks(checks: readonly StoryCheckRun[]): string {
  return checks
    .filter((c) => !c.success)
    .map((c) => {
      const why = c.timedOut
        ? "timed out"
        : c.expect && !c.matched
          ? `never printed /${c.expect}/`
          : `exit code ${c.exitCode}`;
      const head = outputHead(withoutGantryNotes(c.output), PRINTED_LINES);
      const quoted = head.map((l) => JSON.stringify(l.length > 120 ? `${l.slice(0, 120)}…` : l));
      const printed = quoted.length ? `printed ${quoted.join(" / ")}` : "printed nothing";
      return `${c.name} (${why}; ${printed})`;
    })
    .join(", ");
}

/** The check's own output: the note gantry appends (`[gantry: timed out …]`) says what `why` says already. */
const withoutGantryNotes = (output: string) => output.replace(/^\[gantry: .*\]$/gm, "");

/** How many of a failed check's first lines its reason quotes. */
const PRINTED_LINES = 3;

/**
 * Before the story is committed: on a failure the story goes back to rectify with the checks' output,
 * like a red test. Undefined when the checks pass or none is set.
 */
export async function storyCheckAtExit(ctx: StoryContext, judged: Judged): Promise<StageResult | undefined> {
  const outcome = await storyCheck(ctx, "exit", judged);
  if (!outcome || outcome.verdict === "pass") return undefined;
  if (ctx.run.signal.aborted) return { action: "pause", reason: "interrupted" };
  const failing = outcome.checks.filter((c) => !c.success);
  const reason = `story-check: ${failingChecks(outcome.checks)} on the tree to commit`;
  ctx.verify = gateFailure(
    {
      storyId: ctx.story.id,
      strategy: "scoped",
      status: "PASS",
      success: true,
      runner: "story-check",
      passCount: 0,
      failCount: 0,
      skipCount: 0,
      totalCount: 0,
      failures: [],
      command: failing.map((c) => c.command).join(" && "),
      exitCode: 0,
      durationMs: 0,
      rawOutputTail: "",
    },
    "story-check",
    failing.map((c) => ({
      name: `story-check: ${c.name}`,
      message: `\`${c.command}\`: ${failingChecks([c])}`,
    })),
    reason,
    [
      "The tests pass, but the app no longer builds, passes its smoke test or starts as the project's",
      "story-check commands say it must (quality.commands build, smoke, demo). Their output:",
      ...failing.map((c) => `--- ${c.name}: ${c.command}\n${c.output.trim()}`),
      "Make them pass again without weakening them.",
    ],
  );
  ctx.failureHistory.push(failing.length);
  return { action: "retry", fromStage: "rectify", reason };
}

/**
 * Answered "retry" at a failed entry check: one autofix session with the failing checks, then the check
 * again on the tree it left. Undefined when the app works again (the fix is part of this story's work),
 * else why the run must stop.
 */
export async function fixBrokenApp(
  ctx: StoryContext,
  failed: StoryCheckRun[],
): Promise<StageResult | undefined> {
  const findings: ReviewCheck[] = failed
    .filter((c) => !c.success)
    .map((c) => ({
      name: `story-check ${c.name}: ${c.command}`,
      success: false,
      exitCode: c.exitCode,
      output: c.output,
      findings: [],
    }));
  const stopped = await agentStep(ctx, "autofix", { findings });
  if (stopped) return stopped;
  const again = await storyCheck(ctx, "entry", await ctx.run.git.judge());
  if (!again || again.verdict === "pass") return undefined;
  return {
    action: "pause",
    reason: `story-check at entry still fails after an autofix session: ${failingChecks(again.checks)}`,
  };
}
