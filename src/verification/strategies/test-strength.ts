import { copyFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { UNBORN } from "../../git/repo.js";
import { recordVerdict } from "../../ledger/record.js";
import type { EventPayloads } from "../../model/events.js";
import type { Judged, Verdict } from "../../model/ledger.js";
import type { VerifyStatus } from "../../model/verify.js";
import { testEnvironment } from "../env.js";
import { SKIPPED_DIRS } from "../project-files.js";
import { isTestFile } from "../test-conventions.js";
import type { StoryWork } from "../workspace.js";
import { addScratchWorktree, type ScratchWorktree } from "./scratch-worktree.js";
import { runTestFile } from "./test-file-run.js";
import { addedMarkers } from "./test-integrity/markers.js";
import { changedLines } from "./test-integrity/tree-diff.js";

export type TestStrengthFile = EventPayloads["test-strength:result"]["files"][number];
export interface TestStrengthResult {
  verdict: Verdict;
  files: TestStrengthFile[];
  reason?: string;
}

/** Directories whose files are test code (helpers, fixtures, snapshots), never production code. */
const TEST_SIDE_DIRS = new Set([
  "test",
  "tests",
  "__tests__",
  "fixtures",
  "__fixtures__",
  "testdata",
  "__snapshots__",
  "__mocks__",
]);

/**
 * The test-strength gate: each test file the story added or changed since `ctx.baseSha` is run once
 * against the production code as it was before the story, in a scratch worktree of the base commit that
 * holds the story's versions of its test-side files only. A test that still passes there does not
 * exercise the change (`fail`); one that fails there does (`pass`); one that cannot even load there,
 * or whose run says nothing countable, is `unverified`. Emits `test-strength:result` for the ledger,
 * bound to the tree the story has now. The user's index, HEAD and working tree are not touched.
 */
export async function runTestStrength(ctx: StoryWork): Promise<TestStrengthResult> {
  const { run } = ctx;
  const judged: Judged = await run.git.judge();
  const result = await judgeStrength(ctx, judged.tree);
  recordVerdict(run, "test-strength:result", {
    storyId: ctx.story.id,
    verdict: result.verdict,
    files: result.files,
    judged,
    attempt: ctx.pass,
    ...(result.reason ? { reason: result.reason } : {}),
  });
  return result;
}

async function judgeStrength(ctx: StoryWork, tree: string): Promise<TestStrengthResult> {
  const { run } = ctx;
  const template = run.config.quality.commands.testScoped;
  if (!template) {
    return notApplicable("no scoped test command is configured (quality.commands.testScoped)");
  }
  if (ctx.baseSha === UNBORN) {
    return notApplicable(
      "the story started before the first commit: there is no code before it to run against",
    );
  }
  const changed = (await run.git.changedFiles(ctx.baseSha, tree)).filter(
    (file) => !file.split("/").some((part) => SKIPPED_DIRS.has(part)),
  );
  const present = changed.filter((file) => isRegularFile(join(run.root, file)));
  const tests = present.filter(isTestFile);
  const production = changed.filter((file) => !isTestSide(file));
  if (tests.length === 0 || production.length === 0) {
    // Deleting or skipping tests is not "no test to judge": it is the weakest test change there is.
    const weakened = await deletedOrSkipped(run.root, ctx.baseSha, tree, changed, tests);
    if (weakened.length > 0) {
      return {
        verdict: "fail",
        files: [],
        reason: `the story only deleted or skipped tests (${weakened.join("; ")}): no test of it exercises a change`,
      };
    }
    if (tests.length === 0) return notApplicable("the story added or changed no test file");
    return notApplicable("the story changed only test code: there is no production change to exercise");
  }

  const limit = run.config.verify.maxScopedFiles;
  const toRun = tests.slice(0, limit);
  const files: TestStrengthFile[] = tests.slice(limit).map((file) => ({
    file,
    outcome: "unverified",
    status: "NOT_RUN",
    reason: `not run: more than ${limit} changed test files (verify.maxScopedFiles)`,
  }));
  if (run.signal.aborted) return aggregate([...toRun.map((file) => notRun(file, "interrupted")), ...files]);

  let worktree: ScratchWorktree;
  try {
    worktree = await addScratchWorktree(run.root, ctx.baseSha);
  } catch (error) {
    return {
      verdict: "unverified",
      files: [...toRun.map((file) => notRun(file, "the scratch worktree could not be created")), ...files],
      reason: `could not create a worktree of ${ctx.baseSha.slice(0, 12)}: ${(error as Error).message}`,
    };
  }
  try {
    // The story's test-side files (tests, their helpers and fixtures); production code stays at base.
    for (const file of present.filter(isTestSide)) {
      const to = join(worktree.projectDir, file);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(run.root, file), to);
    }
    const budgetMs = run.config.quality.timeoutSeconds * 1000;
    const deadline = performance.now() + budgetMs;
    const env = testEnvironment(process.env, run.config.quality.stripEnv);
    const judgedFiles: TestStrengthFile[] = [];
    for (const file of toRun) {
      const left = Math.round(deadline - performance.now());
      if (run.signal.aborted) judgedFiles.push(notRun(file, "interrupted"));
      else if (left <= 0) {
        judgedFiles.push(
          notRun(file, `the gate's time budget (quality.timeoutSeconds, ${budgetMs / 1000}s) was used up`),
        );
      } else {
        judgedFiles.push(await runOne(file, template, worktree.projectDir, left, env));
      }
    }
    return aggregate([...judgedFiles, ...files]);
  } finally {
    await worktree.remove();
  }

  async function runOne(
    file: string,
    template: string,
    cwd: string,
    timeoutMs: number,
    env: NodeJS.ProcessEnv,
  ): Promise<TestStrengthFile> {
    const judging = run.judging ? { judging: run.judging } : {};
    const ran = await runTestFile({ template, file, cwd, timeoutMs, env, signal: run.signal, ...judging });
    if (ran.aborted) return notRun(file, "interrupted");
    return judgeFile(file, ran.status, ran.reason, ran.parsed.passed);
  }
}

/** One test file's run without the story's production change, as a test-strength outcome. */
export function judgeFile(file: string, status: VerifyStatus, reason?: string, passed = 0): TestStrengthFile {
  switch (status) {
    case "PASS":
      return {
        file,
        outcome: "passes-without-change",
        status,
        reason: `${passed} test(s) passed without the story's production change; it does not exercise it`,
      };
    case "TEST_FAILURE":
      return { file, outcome: "exercises-change", status, ...(reason ? { reason } : {}) };
    case "BUILD_ERROR":
      return {
        file,
        outcome: "cannot-load",
        status,
        reason: `cannot load without the story's production change${reason ? `: ${reason}` : ""}`,
      };
    default:
      return { file, outcome: "unverified", status, ...(reason ? { reason } : {}) };
  }
}

/** `fail` if any file passes without the change, else `unverified` if any says nothing, else `pass`. */
export function aggregate(files: TestStrengthFile[]): TestStrengthResult {
  if (files.length === 0) return notApplicable("the story added or changed no test file");
  const weak = files.filter((f) => f.outcome === "passes-without-change").map((f) => f.file);
  if (weak.length > 0) {
    return { verdict: "fail", files, reason: `${weak.join(", ")} pass(es) without the story's change` };
  }
  const open = files.filter((f) => f.outcome === "cannot-load" || f.outcome === "unverified");
  if (open.length > 0) {
    return {
      verdict: "unverified",
      files,
      reason: `${open.map((f) => f.file).join(", ")}: not shown to exercise the change`,
    };
  }
  return { verdict: "pass", files };
}

/** Test files the story deleted, and changed test files where it added a skip / todo / only marker. */
async function deletedOrSkipped(
  root: string,
  baseSha: string,
  tree: string,
  changed: string[],
  tests: string[],
): Promise<string[]> {
  const deleted = changed.filter((file) => isTestFile(file) && !existsSync(join(root, file)));
  const lines = await changedLines(root, baseSha, tree, tests);
  const skipped = tests.filter(
    (file) => addedMarkers(file, lines.get(file) ?? { added: [], removed: [] }).length > 0,
  );
  return [
    ...deleted.map((file) => `${file} deleted`),
    ...skipped.map((file) => `a skip marker added to ${file}`),
  ];
}

function notApplicable(reason: string): TestStrengthResult {
  return { verdict: "not-applicable", files: [], reason };
}

function notRun(file: string, reason: string): TestStrengthFile {
  return { file, outcome: "unverified", status: "NOT_RUN", reason };
}

function isTestSide(file: string): boolean {
  return isTestFile(file) || file.split("/").some((part) => TEST_SIDE_DIRS.has(part));
}

function isRegularFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
