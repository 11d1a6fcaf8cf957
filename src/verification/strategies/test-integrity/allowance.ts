import { posix } from "node:path";
import type { TestIntegrityFinding } from "../../../model/events.js";

/** The words a criterion must use to allow each kind of finding. */
const ALLOWING_WORDS: Record<TestIntegrityFinding["kind"], RegExp> = {
  "test-deleted": /\b(delete|deleting|remove|removing|drop|rename|move)/i,
  "test-renamed-away": /\b(delete|deleting|remove|removing|drop|rename|move)/i,
  "fewer-tests": /\b(delete|deleting|remove|removing|drop|fewer|reduce)/i,
  "marker-added": /\b(skip|todo|only|ignore|xfail|disable|focus)/i,
  "test-config-changed": /\b(change|update|edit|modify|set|replace|rewrite|configure|add|remove|rename)/i,
  "check-config-changed":
    /\b(change|update|edit|modify|set|replace|rewrite|configure|add|remove|rename|relax|loosen|disabl|enabl|ignor|exclud|suppress|turn)/i,
  "runner-aware-code":
    /\b(test[- ]?(?:mode|run|runner|environment)|under (?:test|pytest|jest|vitest)|detect)/i,
  "check-script-changed": /\b(change|update|edit|modify|set|replace|rewrite|configure|add|remove|rename)/i,
  "suppression-added":
    /\b(disabl|ignor|suppress|silenc|exempt|nolint|noqa|allow\(|ts-expect-error|ts-nocheck)/i,
};

/**
 * The story's own acceptance criteria may allow a finding: one criterion that names the finding's file
 * (its path, or its file name; `quality.commands` for the gantry config) and says the kind of change
 * (e.g. "Remove test/legacy.test.js", "Skip the flaky case in test/net.test.ts", "Change the test
 * script in package.json"). Returns the allowing criterion, or undefined. The agent cannot write the
 * criteria gantry holds in memory for the run.
 */
export function allowingCriterion(
  finding: TestIntegrityFinding,
  criteria: readonly string[],
): string | undefined {
  const names = [finding.file, posix.basename(finding.file)];
  if (finding.file === ".gantry/config.json") names.push("quality.commands");
  const words = ALLOWING_WORDS[finding.kind];
  return criteria.find(
    (criterion) => words.test(criterion) && names.some((name) => criterion.includes(name)),
  );
}

/** What identifies one finding: a person's answer allows findings equal in all of these. */
export function findingKey(finding: TestIntegrityFinding): string {
  return JSON.stringify([finding.kind, finding.file, finding.line ?? 0, finding.evidence]);
}
