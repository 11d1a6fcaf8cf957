import type { JudgingSandbox } from "../../../process/judging-sandbox.js";
import { addScratchWorktree, type ScratchWorktree } from "../scratch-worktree.js";
import { runTestFile, type TestFileRun } from "../test-file-run.js";

/** How many tests one changed test file executed at the story's base and now. */
export interface FileCount {
  file: string;
  base?: number;
  now?: number;
  /** Why the two were not compared. */
  note?: string;
}

export interface CountInput {
  root: string;
  baseSha: string;
  files: readonly string[];
  /** The scoped test command template (`{{files}}`). */
  template: string;
  /** For all the runs together. */
  budgetMs: number;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** The run's judging sandbox: both runs happen there, each over a throw-away layer. */
  judging?: JudgingSandbox;
}

/** Statuses whose parsed count is a count of executed tests (a failing test was executed too). */
const COUNTED = new Set(["PASS", "TEST_FAILURE", "NO_TESTS", "UNPARSED", "BUILD_ERROR"]);

/**
 * Each test file the story changed (it existed at base and still does) is run on its own twice: in a
 * scratch worktree of the base commit (the file and the code as they were) and in the working tree as
 * judged. Fewer tests executed now than at base is for the caller to judge; a file whose base run
 * executed nothing, or either run timed out or was interrupted, is not compared and says why.
 */
export async function countTests(input: CountInput): Promise<FileCount[]> {
  if (input.files.length === 0) return [];
  const deadline = performance.now() + input.budgetMs;
  let worktree: ScratchWorktree;
  try {
    worktree = await addScratchWorktree(input.root, input.baseSha);
  } catch (error) {
    const note = `not compared: no worktree of the base commit (${(error as Error).message})`;
    return input.files.map((file) => ({ file, note }));
  }
  try {
    const counts: FileCount[] = [];
    for (const file of input.files) {
      const atBase = await runWithin(file, worktree.projectDir);
      if (typeof atBase === "string") {
        counts.push({ file, note: atBase });
        continue;
      }
      const base = atBase.parsed.executed;
      if (base <= 0) {
        counts.push({ file, base, note: `not compared: it executed no test at base (${atBase.status})` });
        continue;
      }
      const now = await runWithin(file, input.root);
      if (typeof now === "string") counts.push({ file, base, note: now });
      else counts.push({ file, base, now: now.parsed.executed });
    }
    return counts;
  } finally {
    await worktree.remove();
  }

  async function runWithin(file: string, cwd: string): Promise<TestFileRun | string> {
    const left = Math.round(deadline - performance.now());
    if (input.signal.aborted) return "not compared: interrupted";
    if (left <= 0) return "not compared: the gate's time budget (quality.timeoutSeconds) was used up";
    const ran = await runTestFile({ ...input, file, cwd, timeoutMs: left });
    if (ran.aborted) return "not compared: interrupted";
    if (!COUNTED.has(ran.status)) return `not compared: ${ran.status}${ran.reason ? ` (${ran.reason})` : ""}`;
    return ran;
  }
}
