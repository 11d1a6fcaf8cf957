import type { StoryContext } from "../pipeline/story-context.js";

export interface ScopedCommand {
  command: string | undefined;
  note?: string;
}

/** The test command for a story's verify: the scoped set of tests its change touches, else the full suite. */
export async function scopedTestCommand(ctx: StoryContext): Promise<ScopedCommand> {
  const { test } = ctx.run.config.quality.commands;
  return { command: test };
}
