import { changedFiles } from "../git/changed-files.js";
import { scopedCommand, selectTests } from "./smart-runner.js";
import type { StoryWork } from "./workspace.js";

export interface ScopedCommand {
  command: string | undefined;
  note?: string;
}

/**
 * The test command for a story's verify: with `quality.commands.testScoped`, the tests its change
 * touches since the story's base commit; else, or when no test maps, the full suite — and says which.
 */
export async function scopedTestCommand(ctx: StoryWork): Promise<ScopedCommand> {
  const { test, testScoped } = ctx.run.config.quality.commands;
  if (!testScoped) return { command: test, note: "full suite: no testScoped command" };
  const changed = await changedFiles(ctx.run.root, ctx.baseSha);
  const selection = await selectTests({
    projectRoot: ctx.run.root,
    changedFiles: changed,
    maxFiles: ctx.run.config.verify.maxScopedFiles,
  });
  if (selection.mode === "scoped") {
    return {
      command: scopedCommand(testScoped, selection.files),
      note: `scoped: ${selection.files.length} test file(s); ${selection.reason}`,
    };
  }
  return { command: test ?? testScoped.replace("{{files}}", ""), note: `full suite: ${selection.reason}` };
}
