import { isAbsolute, relative } from "node:path";
import { RUN_SCOPE } from "../../ledger/entry.js";
import { recordVerdict } from "../../ledger/record.js";
import { runVerification } from "../../verification/orchestrator.js";
import { selectTests } from "../../verification/smart-runner.js";
import type { RunContext } from "../context.js";

export interface PostRunResult {
  name: string;
  ran: boolean;
  success: boolean;
  reason?: string;
  /** Stories whose committed work the failures point at. */
  implicated: string[];
}

export interface PassedStory {
  id: string;
  /** Files its commit changed, relative to the project root; asked only when the suite fails. */
  files: () => Promise<string[]>;
}

/**
 * Once after every story, when `regression.mode` is deferred: the full suite on the final tree. Each
 * failing test is put on the stories whose change reaches it (the test itself, a test beside or
 * mirroring a changed file, or one importing it); the run fails either way.
 */
export async function deferredRegression(run: RunContext, passed: PassedStory[]): Promise<PostRunResult> {
  const name = "deferred-regression";
  if (run.config.execution.regression.mode !== "deferred" || passed.length === 0) {
    return { name, ran: false, success: true, implicated: [] };
  }
  const command = run.config.quality.commands.test;
  if (command && (await passedAlready(run, command)))
    return { name, ran: true, success: true, implicated: [] };
  const result = await runVerification(run, {
    storyId: RUN_SCOPE,
    strategy: "deferred-regression",
    command,
    attempt: 1,
  });
  if (result.success) return { name, ran: true, success: true, implicated: [] };
  const failing = new Set(
    result.failures.flatMap((f) => (f.file ? [projectRelative(run.root, f.file)] : [])),
  );
  const implicated: string[] = [];
  for (const story of passed) {
    const files = await story.files();
    const reached = await selectTests({
      projectRoot: run.root,
      changedFiles: files,
      maxFiles: Number.MAX_SAFE_INTEGER,
      maxShare: 1,
    });
    const touched = new Set([...files, ...reached.files]);
    if ([...failing].some((file) => touched.has(file))) implicated.push(story.id);
  }
  const where =
    implicated.length > 0
      ? `; the failing tests are reached by ${implicated.join(", ")}`
      : "; no story's change reaches the failing tests";
  return {
    name,
    ran: true,
    success: false,
    reason: `full suite ${result.status} (${result.failCount} failed)${where}`,
    implicated,
  };
}

/**
 * The full suite already passed on this exact tree in this run: a story's verify (or inline regression)
 * ran the same command, unscoped, on the tree the run ends with (the last story's tree when nothing came
 * after it). Its verdict, from the run's own book, is the regression's answer for that tree, recorded as
 * such; the suite is not run a second time on the same bytes.
 */
async function passedAlready(run: RunContext, command: string): Promise<boolean> {
  const judged = await run.git.judge();
  const earlier = run.verdicts.entries.findLast(
    (e) =>
      (e.gate === "verify" || e.gate === "regression") &&
      e.tree === judged.tree &&
      e.verdict === "pass" &&
      (e.detail as { command?: string }).command === command,
  );
  if (!earlier) return false;
  const detail = earlier.detail as { runner?: string; passCount?: number; skipCount?: number };
  const passCount = detail.passCount ?? 0;
  const skipCount = detail.skipCount ?? 0;
  run.bus.emit("verify:start", { storyId: RUN_SCOPE, strategy: "deferred-regression" });
  recordVerdict(run, "verify:result", {
    storyId: RUN_SCOPE,
    strategy: "deferred-regression",
    status: "PASS",
    success: true,
    runner: detail.runner ?? "unknown",
    passCount,
    failCount: 0,
    skipCount,
    totalCount: passCount + skipCount,
    failures: [],
    command,
    exitCode: 0,
    durationMs: 0,
    rawOutputTail: "",
    scope: `full suite: passed on this tree in ${earlier.storyId}'s ${earlier.gate} (attempt ${earlier.attempt}); not run again`,
    judged,
    attempt: 1,
  });
  return true;
}

function projectRelative(root: string, file: string): string {
  const path = file.startsWith("file://") ? new URL(file).pathname : file;
  return isAbsolute(path) ? relative(root, path) : path.replace(/^\.\//, "");
}
