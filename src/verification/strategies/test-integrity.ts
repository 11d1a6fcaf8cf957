import { UNBORN } from "../../git/repo.js";
import { recordVerdict } from "../../ledger/record.js";
import type { TestIntegrityFinding } from "../../model/events.js";
import type { Judged, Verdict } from "../../model/ledger.js";
import { testEnvironment } from "../env.js";
import { familyOf, isTestFile } from "../test-conventions.js";
import type { StoryWork } from "../workspace.js";
import { allowingCriterion, findingKey } from "./test-integrity/allowance.js";
import { checkConfigChanges } from "./test-integrity/check-config-files.js";
import { checkScriptChanges, judgingChecks, testCommandScripts } from "./test-integrity/check-scripts.js";
import { renamedOutOfCollection } from "./test-integrity/collection.js";
import { qualityCommandsChange } from "./test-integrity/gantry-commands.js";
import { addedMarkers, hasMarkerRules } from "./test-integrity/markers.js";
import { runnerAwareFindings, scansRunnerAwareness } from "./test-integrity/runner-aware.js";
import { suppressionFault } from "./test-integrity/suppression-rule.js";
import { addedSuppressions, hasSuppressionRules } from "./test-integrity/suppressions.js";
import { testConfigChanges } from "./test-integrity/test-config-files.js";
import { countTests, type FileCount } from "./test-integrity/test-counts.js";
import { changedLines, EMPTY_TREE, treeChanges } from "./test-integrity/tree-diff.js";

/** The `quality.commands` that judge the code without running it: what `check-config-changed` covers there. */
const CHECK_COMMANDS = new Set(["lint", "typecheck"]);

/** `allowedBy` of a specific suppression in production code: shown with the verdict, not failed. */
export const REASONED = "verify.suppressions: reasoned (a specific suppression in production code)";

/** `allowedBy` of a finding a person allowed during the run (the events log has who answered). */
export const ANSWERED = "interaction answer: test-integrity approve";

export interface TestIntegrityResult {
  verdict: Verdict;
  findings: TestIntegrityFinding[];
  allowed: (TestIntegrityFinding & { allowedBy: string })[];
  /** Per changed test file: tests executed at base and now (or why not compared). */
  counts: FileCount[];
  reason?: string;
}

/**
 * The test-integrity gate: the judged tree against the story's base commit. Fails, with the file, line
 * and what, when a test file was deleted or renamed away, a skip / todo / only marker was added, a changed
 * test file executes fewer tests than it did at base, or what defines the test command changed (runner
 * config, test scripts, `quality.commands`); and when the story weakened the lint / type checks that
 * review runs: their configuration changed, or a suppression comment added — unless an acceptance
 * criterion allows that finding.
 * Emits `test-integrity:result` for the ledger, bound to the tree judged.
 */
export async function runTestIntegrity(
  ctx: StoryWork,
  options: {
    acceptanceCriteria: readonly string[];
    /** The tree the verify before it judged (one working-tree scan fewer); judged afresh without it. */
    judged?: Judged;
    /** Findings a person allowed through the `test-integrity` interaction trigger (their `findingKey`s). */
    allowedByAnswer?: ReadonlySet<string>;
    /** What the lint / type checks reported when they last failed in this story: a suppression of exactly that fails. */
    reported?: readonly string[];
  },
): Promise<TestIntegrityResult & { judged: Judged }> {
  const judged: Judged = options.judged ?? (await ctx.run.git.judge());
  const result = await judgeIntegrity(
    ctx,
    judged,
    options.acceptanceCriteria,
    options.allowedByAnswer,
    options.reported,
  );
  recordVerdict(ctx.run, "test-integrity:result", {
    storyId: ctx.story.id,
    verdict: result.verdict,
    findings: result.findings,
    allowed: result.allowed,
    judged,
    attempt: ctx.pass,
    ...(result.reason ? { reason: result.reason } : {}),
  });
  return { ...result, judged };
}

export async function judgeIntegrity(
  ctx: StoryWork,
  judged: Judged,
  criteria: readonly string[],
  allowedByAnswer: ReadonlySet<string> = new Set(),
  reported: readonly string[] = [],
): Promise<TestIntegrityResult> {
  const { run } = ctx;
  const { tree } = judged;
  const unborn = ctx.baseSha === UNBORN;
  const base = unborn ? EMPTY_TREE : ctx.baseSha;
  const changes = await treeChanges(run.root, base, tree, undefined);
  const found: TestIntegrityFinding[] = [];
  const { test, testScoped, lint, typecheck } = run.config.quality.commands;
  const testCommands = [test, testScoped].filter((c): c is string => Boolean(c));

  for (const change of changes) {
    if (change.status === "D" && isTestSource(change.from)) {
      found.push({
        kind: "test-deleted",
        file: change.from,
        evidence: `test file ${change.from} was deleted`,
      });
    } else if (change.status === "R" && isTestSource(change.from) && !isTestSource(change.path)) {
      found.push({
        kind: "test-renamed-away",
        file: change.from,
        evidence: `test file ${change.from} was renamed to ${change.path}, which is not a test file`,
      });
    } else if (change.status === "R" && renamedOutOfCollection(testCommands, change.from, change.path)) {
      found.push({
        kind: "test-renamed-away",
        file: change.from,
        evidence: `test file ${change.from} was renamed to ${change.path}, which the test command's runner does not collect`,
      });
    }
  }

  const present = changes.filter((c) => c.status !== "D").map((c) => c.path);
  const marked = present.filter((p) => hasMarkerRules(p) && (isTestSource(p) || familyOf(p) === "rs"));
  const suppressible = present.filter(hasSuppressionRules);
  const production = present.filter((p) => scansRunnerAwareness(p, isTestSource));
  const scanned = [...new Set([...marked, ...suppressible, ...production])];
  const lines = await changedLines(run.root, base, tree, scanned, changes);
  const linesOf = (path: string) => lines.get(path) ?? { added: [], removed: [] };
  for (const path of marked) {
    for (const hit of addedMarkers(path, linesOf(path))) {
      found.push({
        kind: "marker-added",
        file: path,
        line: hit.line,
        evidence: `new ${hit.marker}: ${hit.text}`,
      });
    }
  }
  const reasoned: TestIntegrityResult["allowed"] = [];
  const rule = run.config.verify.suppressions;
  for (const path of suppressible) {
    const testFile = isTestSource(path);
    for (const hit of addedSuppressions(path, linesOf(path))) {
      const why = suppressionFault(hit, { rule, testFile, reported, path });
      const evidence = `new ${hit.suppression}${why ? `, ${why}` : ""}: ${hit.text}`;
      const finding = { kind: "suppression-added" as const, file: path, line: hit.line, evidence };
      if (why) found.push(finding);
      else reasoned.push({ ...finding, allowedBy: REASONED });
    }
  }

  found.push(...runnerAwareFindings(production, linesOf));

  const checkCommands = [lint, typecheck].filter((c): c is string => Boolean(c));
  for (const change of await testConfigChanges({ root: run.root, base, tree, changes, testCommands })) {
    found.push({ kind: "test-config-changed", ...change });
  }
  const testRunners = { root: run.root, base, tree, changes, checks: testCommandScripts(run.config) };
  for (const change of await checkScriptChanges({ ...testRunners, scriptsOnly: true })) {
    found.push({ kind: "test-config-changed", ...change });
  }
  const configs = { root: run.root, base, tree, changes, testCommands, checkCommands };
  for (const change of await checkConfigChanges(configs)) {
    found.push({ kind: "check-config-changed", ...change });
  }
  for (const change of await checkScriptChanges({ ...configs, checks: judgingChecks(run.config) })) {
    found.push({ kind: "check-script-changed", ...change });
  }
  const gantryConfig = {
    root: run.root,
    base: unborn ? undefined : ctx.baseSha,
    head: judged.sha,
    loaded: run.config.quality.commands,
  };
  const commands = await qualityCommandsChange({ ...gantryConfig, only: (key) => !CHECK_COMMANDS.has(key) });
  if (commands) found.push({ kind: "test-config-changed", ...commands });
  const checks = await qualityCommandsChange({ ...gantryConfig, only: (key) => CHECK_COMMANDS.has(key) });
  if (checks) found.push({ kind: "check-config-changed", ...checks });

  const touchedTests = changes.some((c) => isTestSource(c.from) || isTestSource(c.path));
  if (!touchedTests && found.length === 0 && reasoned.length === 0) {
    return {
      verdict: "not-applicable",
      findings: [],
      allowed: [],
      counts: [],
      reason: "the story touched no test file and no test configuration",
    };
  }

  const counts = await changedFileCounts(
    ctx,
    changes.filter((c) => c.status === "M" && isTestSource(c.path)).map((c) => c.path),
  );
  for (const count of counts) {
    if (count.base === undefined || count.now === undefined || count.now >= count.base) continue;
    found.push({
      kind: "fewer-tests",
      file: count.file,
      evidence: `${count.file} executed ${count.base} test(s) at the base commit ${ctx.baseSha.slice(0, 12)} and ${count.now} now`,
    });
  }

  const findings: TestIntegrityFinding[] = [];
  const allowed: TestIntegrityResult["allowed"] = [...reasoned];
  for (const finding of found) {
    const allowedBy =
      allowingCriterion(finding, criteria) ??
      (allowedByAnswer.has(findingKey(finding)) ? ANSWERED : undefined);
    if (allowedBy) allowed.push({ ...finding, allowedBy });
    else findings.push(finding);
  }
  if (findings.length === 0) return { verdict: "pass", findings, allowed, counts };
  return {
    verdict: "fail",
    findings,
    allowed,
    counts,
    reason: findings.map((f) => `${f.file}${f.line ? `:${f.line}` : ""}: ${f.evidence}`).join("; "),
  };
}

/**
 * Tests executed by each changed test file at base and now; up to `verify.maxScopedFiles` files. A changed
 * (`M`) file existed at base, so there is a base commit to count it at.
 */
async function changedFileCounts(ctx: StoryWork, files: string[]): Promise<FileCount[]> {
  const { run } = ctx;
  if (files.length === 0) return [];
  const template = run.config.quality.commands.testScoped;
  if (!template) {
    const note = "not compared: no scoped test command (quality.commands.testScoped) to run one file with";
    return files.map((file) => ({ file, note }));
  }
  const limit = run.config.verify.maxScopedFiles;
  const counted = await countTests({
    root: run.root,
    baseSha: ctx.baseSha,
    files: files.slice(0, limit),
    template,
    budgetMs: run.config.quality.timeoutSeconds * 1000,
    env: testEnvironment(process.env, run.config.quality.stripEnv),
    signal: run.signal,
    ...(run.judging ? { judging: run.judging } : {}),
  });
  const over = files.slice(limit).map((file) => ({
    file,
    note: `not compared: more than ${limit} changed test files (verify.maxScopedFiles)`,
  }));
  return [...counted, ...over];
}

/** A test file by the project's conventions, or a Rust integration test (`tests/*.rs`). */
export function isTestSource(path: string): boolean {
  return isTestFile(path) || (familyOf(path) === "rs" && path.split("/").slice(0, -1).includes("tests"));
}
