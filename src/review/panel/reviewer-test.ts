import { existsSync, lstatSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { UNBORN } from "../../git/repo.js";
import type { PanelFinding, ReviewerTest } from "../../model/review.js";
import { testEnvironment } from "../../verification/env.js";
import { addScratchWorktree, commitOfTree } from "../../verification/strategies/scratch-worktree.js";
import { runTestFile, type TestFileRun } from "../../verification/strategies/test-file-run.js";
import type { Workspace } from "../../verification/workspace.js";
import type { TestConfirmation } from "./decision.js";

/** At most this many reviewer tests are run for one decision (the first blocking findings that carry one). */
export const MAX_REVIEWER_TESTS = 4;

export interface ReviewerTestInput {
  run: Workspace;
  baseSha: string;
  /** The tree the panel judged (the judge's, of the whole repository). */
  tree: string;
  /** The blocking findings that carry a test. */
  findings: readonly PanelFinding[];
}

/**
 * Runs each blocking finding's test with the scoped test command, once on the story's tree and once at
 * its base commit, each in a scratch worktree (the user's tree, index and HEAD are not touched; a test the
 * reviewer wrote is added there only). Confirmed: it fails on the story's tree (the named test among the
 * failures, when a name is given) and does not fail at base, where not loading at all (the code it tests
 * did not exist yet) is no failure.
 */
export async function runReviewerTests(
  input: ReviewerTestInput,
): Promise<Map<PanelFinding, TestConfirmation>> {
  const outcomes = new Map<PanelFinding, TestConfirmation>();
  const { run } = input;
  const withTests = input.findings.filter((f) => f.test);
  if (withTests.length === 0) return outcomes;
  const template = run.config.quality.commands.testScoped;
  const toRun: PanelFinding[] = [];
  for (const finding of withTests) {
    const test = finding.test as ReviewerTest;
    const bad = badPath(test.file);
    if (!template)
      outcomes.set(finding, notRun("no scoped test command is configured (quality.commands.testScoped)"));
    else if (bad) outcomes.set(finding, notRun(`its test path ${JSON.stringify(test.file)} ${bad}`));
    else if (toRun.length >= MAX_REVIEWER_TESTS)
      outcomes.set(finding, notRun(`more than ${MAX_REVIEWER_TESTS} tests were supplied`));
    else toRun.push(finding);
  }
  if (toRun.length === 0 || !template || run.signal.aborted) return outcomes;
  const storyCommit = await commitOfTree(
    run.root,
    input.tree,
    input.baseSha === UNBORN ? undefined : input.baseSha,
  );
  const story = await addScratchWorktree(run.root, storyCommit);
  const base = input.baseSha === UNBORN ? undefined : await addScratchWorktree(run.root, input.baseSha);
  try {
    const env = testEnvironment(process.env, run.config.quality.stripEnv);
    const timeoutMs = run.config.quality.timeoutSeconds * 1000;
    for (const finding of toRun) {
      const test = finding.test as ReviewerTest;
      const file = normalize(test.file);
      const once = async (dir: string): Promise<TestFileRun> => {
        if (test.content !== undefined) writeInside(dir, file, test.content);
        return runTestFile({
          template,
          file,
          cwd: dir,
          timeoutMs,
          env,
          signal: run.signal,
          ...(run.judging ? { judging: run.judging } : {}),
        });
      };
      try {
        const onStory = await once(story.projectDir);
        const atBase = base ? await once(base.projectDir) : undefined;
        if (run.signal.aborted) break;
        outcomes.set(finding, confirmation(onStory, atBase, test.name));
      } catch (error) {
        outcomes.set(finding, notRun((error as Error).message));
      }
    }
  } finally {
    await story.remove();
    await base?.remove();
  }
  return outcomes;
}

/** The decision on one test from its two runs; pure, so the rule is tested on its own. */
export function confirmation(
  onStory: Pick<TestFileRun, "status" | "parsed">,
  atBase: Pick<TestFileRun, "status" | "parsed"> | undefined,
  name?: string,
): TestConfirmation {
  const failsNamed = (run: Pick<TestFileRun, "status" | "parsed">) =>
    run.status === "TEST_FAILURE" &&
    (name === undefined || run.parsed.failures.some((f) => namesTest(f.name, name)));
  if (onStory.status !== "TEST_FAILURE") {
    return { confirmed: false, said: `on the story's tree it is ${onStory.status}, not a failing test` };
  }
  if (!failsNamed(onStory)) {
    return { confirmed: false, said: `on the story's tree other tests fail, not ${JSON.stringify(name)}` };
  }
  if (atBase && (name === undefined ? atBase.status === "TEST_FAILURE" : failsNamed(atBase))) {
    return { confirmed: false, said: "it fails on the story's tree but also at the story's base" };
  }
  const there = atBase ? `at base it is ${atBase.status}` : "the story started before the first commit";
  return { confirmed: true, said: `it fails on the story's tree; ${there}` };
}

/** A failure's name is the test's: exactly, or as the last part of a suite path (`suite > test`, `file::test`). */
function namesTest(failure: string, name: string): boolean {
  const f = failure.trim();
  const n = name.trim();
  return f === n || [" > ", " › ", "::", " ", "."].some((sep) => f.endsWith(`${sep}${n}`));
}

function notRun(why: string): TestConfirmation {
  return { confirmed: false, said: `not run: ${why}` };
}

/**
 * Writes a reviewer's test file into a scratch checkout, never through a symbolic link the story's tree
 * holds: the tree is the agent's, and a link there must not carry a write outside the checkout.
 */
function writeInside(dir: string, file: string, content: string): void {
  const target = join(dir, file);
  const top = realpathSync(dir);
  let existing = dirname(target);
  while (!existsSync(existing)) existing = dirname(existing);
  const real = realpathSync(existing);
  const isLink = (path: string) => {
    try {
      return lstatSync(path).isSymbolicLink();
    } catch {
      return false;
    }
  };
  if ((real !== top && !real.startsWith(`${top}${sep}`)) || isLink(target)) {
    throw new Error(`${file} leads outside the checkout through a symbolic link`);
  }
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
}

/** Why a reviewer's test path may not be used: absolute, leaving the project, or inside .git / .gantry. */
function badPath(path: string): string | undefined {
  const clean = normalize(path);
  if (path.startsWith("/") || clean.startsWith("/")) return "is absolute";
  if (clean === ".." || clean.startsWith("../")) return "leaves the project";
  const first = clean.split("/")[0];
  if (first === ".git" || first === ".gantry" || first === "node_modules") return `is inside ${first}/`;
  return undefined;
}
