import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { RunContext } from "../../stages/context.js";
import { oneLine } from "../../util/text.js";
import { runQualityCommand } from "../../verification/quality-command.js";

/** What is kept of a failing setup's output for its reason. */
const TAIL_BYTES = 4 * 1024;

/**
 * `execution.worktreeSetup`: what a new worktree needs before the story's first session (`pip install -e .`
 * into the worktree's own virtualenv, `npm ci --prefer-offline`, code generation). It runs in the worktree,
 * under the worker's sandbox (it runs the project's code), before any session: what it makes is there
 * before the story's work is measured, and is never the story's. It must leave the tree git sees as it
 * was (what it makes is ignored): anything else would be committed as the story's change. Returns why the
 * story cannot start in this worktree, or undefined.
 */
export async function setUpWorktree(ctx: RunContext, storyId: string): Promise<string | undefined> {
  const command = ctx.config.execution.worktreeSetup;
  if (command !== undefined) {
    const started = Date.now();
    ctx.bus.emit("worktree:setup", { storyId, command, phase: "start" });
    const unready = await setUp(ctx, command, started);
    ctx.bus.emit("worktree:setup", {
      storyId,
      command,
      phase: "end",
      ok: unready === undefined,
      durationMs: Date.now() - started,
    });
    if (unready !== undefined) return unready;
  }
  return testProgramMissing(ctx);
}

/**
 * The test command's program, named by a path in the tree (`.venv/bin/python`, `node_modules/.bin/x`), that
 * the worktree does not have: ignored, so never checked out there. No session could fix that, and every
 * pass would end "the test command was not found": the story does not start.
 */
function testProgramMissing(ctx: RunContext): string | undefined {
  const command = ctx.config.quality.commands.test;
  const program = command
    ?.trim()
    .split(/\s+/)
    .find((word) => !/^\w+=/.test(word));
  if (!program?.includes("/") || isAbsolute(program) || existsSync(join(ctx.root, program))) {
    return undefined;
  }
  const fix = ctx.config.execution.worktreeSetup
    ? "execution.worktreeSetup did not make it"
    : "set execution.worktreeSetup to make it (docs/parallel.md)";
  return `quality.commands.test runs ${program}, which the story's worktree does not have (an ignored file is not checked out into a worktree): ${fix}`;
}

async function setUp(ctx: RunContext, command: string, started: number): Promise<string | undefined> {
  const result = await runQualityCommand(ctx, command, TAIL_BYTES, { changesCode: true });
  const what = `execution.worktreeSetup (${oneLine(command, 80)})`;
  if (result.aborted) return `${what} was interrupted`;
  if (result.timedOut || result.exitCode !== 0) {
    const how = result.timedOut ? "timed out" : `exited with ${result.exitCode}`;
    const tail = result.output.trim();
    return `${what} ${how}${tail ? `: ${tail.slice(-1000)}` : ""}`;
  }
  const changed = await ctx.git.dirtyFiles();
  ctx.logger.info({ command, durationMs: Date.now() - started, changed }, "worktree set up");
  if (changed.length > 0) {
    const list = changed.slice(0, 5).join(", ") + (changed.length > 5 ? `, … (${changed.length})` : "");
    return `${what} left files git sees (${list}): what it makes must be ignored (.gitignore), or it would be committed as the story's work`;
  }
  return undefined;
}
