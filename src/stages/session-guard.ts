import type { GitSnapshot } from "../git/tamper-snapshot.js";
import { recordVerdict } from "../ledger/record.js";
import type { AgentRole } from "../model/agent.js";
import type { Judged } from "../model/ledger.js";
import type { StageResult } from "../model/stage.js";
import { type OwnedFiles, restoreOwnedFiles, snapshotOwnedFiles } from "../runs/owned-files.js";
import type { StoryContext } from "./context.js";

/** What the guard holds between the start and the end of one agent session. */
export interface SessionGuard {
  /** After the session: puts back what it may, records a `tamper` verdict if anything changed. */
  finish(): Promise<StageResult | undefined>;
}

/**
 * Before an agent session, records what gantry owns and what judges the work: git's state and gantry's
 * files. After it, anything the session changed there is put back where that is safe, announced as a
 * `tamper:result` (the ledger records a `tamper: fail`), and the pass ends: a story whose agent reached
 * for the judge is not done. HEAD switched or an operation left half done pauses the run instead, since
 * no later story could be committed safely on it.
 */
export async function guardSession(ctx: StoryContext, role: AgentRole): Promise<SessionGuard> {
  const { run } = ctx;
  const ignoredBefore = await run.git.ignoredPaths();
  const git: GitSnapshot = await run.git.snapshot();
  // prd.json as the pass's start wrote it (in progress) is what the session sees and what is put back.
  await run.stories.landed();
  const owned: OwnedFiles = snapshotOwnedFiles(run.root);
  return {
    async finish() {
      const gantryFiles = restoreOwnedFiles(run.root, owned);
      const hidden = await run.git.newIgnoredSources(ignoredBefore);
      if (hidden.length > 0) ctx.ignoredBySessions = new Set([...(ctx.ignoredBySessions ?? []), ...hidden]);
      const changes = [
        ...gantryFiles.map((what) => ({ kind: "gantry-file", what, restored: true })),
        ...(await run.git.restoreSince(git)),
      ];
      if (changes.length === 0) return undefined;
      recordVerdict(run, "tamper:result", {
        storyId: ctx.story.id,
        role,
        verdict: "fail",
        changes: changes.map(({ what, restored }) => ({ what, restored })),
        judged: await judgedOrHead(ctx),
        attempt: ctx.pass,
      });
      const said = changes.map((c) => `${c.what}${c.restored ? " (put back)" : ""}`).join("; ");
      const reason = `tamper: the ${role} session changed what judges its work: ${said}`;
      const unsafe = changes.some((c) => !c.restored && (c.kind === "head" || c.kind === "in-progress"));
      return unsafe ? { action: "pause", reason } : { action: "fail", reason, tamper: true };
    },
  };
}

/** The tree the tampering session left, or HEAD alone when even the judge refuses it. */
async function judgedOrHead(ctx: StoryContext): Promise<Judged> {
  try {
    return await ctx.run.git.judge();
  } catch {
    return { sha: await ctx.run.git.head(), tree: "" };
  }
}
