import { SKIPPED_DIRS } from "./project-files.js";
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
  // From the judged tree (the one verify records its verdict on), not another walk of the disk: what
  // changed is a diff of two trees, the project's files the tree's listing (kept per tree).
  const { git } = ctx.run;
  const judged = await git.judge();
  const [changed, files] = await Promise.all([
    git.changedFiles(ctx.baseSha, judged.tree),
    git.treeFiles(judged.tree),
  ]);
  const selection = await selectTests({
    projectRoot: ctx.run.root,
    changedFiles: changed,
    allFiles: files.filter((file) => !file.split("/").some((part) => SKIPPED_DIRS.has(part))),
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
