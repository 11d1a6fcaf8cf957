import { posix } from "node:path";
import type { Config } from "../../../config/schema.js";
import { configuredChecks } from "../../story-check.js";
import { wholeFileChange } from "./check-config-files.js";
import { parseObject, stringRecord } from "./config-text.js";
import { reachedScripts, scriptChanges } from "./package-scripts.js";
import type { ConfigFinding } from "./test-config-files.js";
import { configTexts, type TreeChange } from "./tree-diff.js";

/** A command gantry runs to judge the story besides its tests, and what it is, for the evidence. */
export interface JudgingCheck {
  /** e.g. `quality.commands.smoke (the story check)`. */
  what: string;
  command: string;
}

/** Programs whose first operand is the script they run: shells, and the rest. */
const SHELLS = /^(?:sh|bash|dash|zsh|ksh)$/;
const INTERPRETERS =
  /^(?:sh|bash|dash|zsh|ksh|node|nodejs|deno|bun|python[0-9.]*|ruby|perl|php|tsx|ts-node)$/;
/**
 * Where a script of another language is a check's own and not the app's (`node src/server.js` as the demo
 * command is the app, which stories change): a tools folder, or a name that says check.
 */
const TOOL_FOLDER = /^(?:scripts?|tools?|bin|ci|checks?|hack|\.github)\//;
const CHECK_NAME = /check|smoke|demo|build|review|verify|\.sh$/i;
/** Flags after which the script comes from elsewhere (`-c '…'`, `-m module`, `node -e '…'`, stdin). */
const SHELL_NO_SCRIPT = new Set(["-c", "-s", "-"]);
const NO_SCRIPT = new Set(["-c", "-m", "-e", "--eval", "-p", "--print", "--test", "-"]);
const TASK_FILES = /^(?:GNUmakefile|[Mm]akefile|[Jj]ustfile|\.justfile)$/;
const RUNS_TASKS = /(?:^|[\s;&|(])(?:make|gmake|just)(?:\s|$)/;

/**
 * The project files a command runs as its script: the first operand of a shell (`sh tools/smoke.sh`), and
 * the path that is its program (`./tools/check.sh`) or another interpreter's first operand (`node
 * scripts/smoke.mjs`) when it lies in a tools folder or its name says check, in each of its simple
 * commands. Relative to the project root, `./` dropped; absolute paths and `..` are not the tree's.
 */
export function scriptPaths(command: string): string[] {
  const paths = new Set<string>();
  for (const part of command.split(/&&|\|\||[;|&\n()]/)) {
    const words = part
      .trim()
      .split(/\s+/)
      .map((word) => word.replace(/^["']|["']$/g, ""))
      .filter((word) => word && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    const [program, ...rest] = words;
    if (!program) continue;
    const name = posix.basename(program);
    if (program.includes("/") && !INTERPRETERS.test(name)) add(program, false);
    else if (INTERPRETERS.test(name)) {
      const stops = SHELLS.test(name) ? SHELL_NO_SCRIPT : NO_SCRIPT;
      for (const word of rest) {
        if (stops.has(word)) break;
        if (word.startsWith("-")) continue;
        add(word, SHELLS.test(name));
        break;
      }
    }
  }
  return [...paths].sort();

  function add(word: string, byShell: boolean): void {
    const path = posix.normalize(word);
    if (path.startsWith("/") || path.startsWith("../") || path === "." || /[$`*?{}]/.test(path)) return;
    if (byShell || TOOL_FOLDER.test(path) || CHECK_NAME.test(posix.basename(path))) paths.add(path);
  }
}

/**
 * Changes from base to the judged tree of what the checks run: the scripts their commands name, the
 * Makefile or justfile when one runs make or just, and the package.json scripts one reaches. The check
 * itself runs whatever the story left there, so a check script rewritten to `exit 0` passes: this is
 * where that is seen. One finding per file, naming the check.
 */
export async function checkScriptChanges(input: {
  root: string;
  base: string;
  tree: string;
  changes: readonly TreeChange[];
  checks: readonly JudgingCheck[];
  /** Only the scripts the commands name: their Makefile and package scripts are judged elsewhere (the test commands'). */
  scriptsOnly?: boolean;
}): Promise<ConfigFinding[]> {
  if (input.checks.length === 0) return [];
  const named = new Map<string, string>();
  for (const check of input.checks) {
    for (const path of scriptPaths(check.command)) if (!named.has(path)) named.set(path, check.what);
  }
  const tasks = input.scriptsOnly ? undefined : input.checks.find((check) => RUNS_TASKS.test(check.command));
  const isChecked = (path: string) =>
    named.has(path) ||
    (tasks !== undefined && TASK_FILES.test(path)) ||
    (!input.scriptsOnly && path === "package.json");
  const findings: ConfigFinding[] = [];
  for (const { path, before, after } of await configTexts(input, isChecked)) {
    if (path === "package.json") {
      findings.push(...packageChanges(path, before, after, input.checks));
      continue;
    }
    findings.push(
      ...wholeFileChange(path, `${path} (run by ${named.get(path) ?? tasks?.what})`, before, after),
    );
  }
  return findings;
}

/** The package.json scripts a check reaches (`npm run smoke`), each changed one a finding naming the check. */
function packageChanges(
  path: string,
  before: string | undefined,
  after: string | undefined,
  checks: readonly JudgingCheck[],
): ConfigFinding[] {
  const was = stringRecord(parseObject(before ?? "{}")?.scripts);
  const now = stringRecord(parseObject(after ?? "{}")?.scripts);
  const findings: ConfigFinding[] = [];
  const seen = new Set<string>();
  for (const check of checks) {
    const names = reachedScripts([check.command], /^$/, [was, now]).filter((name) => !seen.has(name));
    for (const name of names) seen.add(name);
    for (const finding of scriptChanges(path, names, was, now, after)) {
      findings.push({ ...finding, evidence: `${finding.evidence} (run by ${check.what})` });
    }
  }
  return findings;
}

/** The story checks (`quality.commands.build|smoke|demo`) and the command reviewers of the review panel. */
export function judgingChecks(config: Config): JudgingCheck[] {
  const checks: JudgingCheck[] = configuredChecks(config).map(({ name, check }) => ({
    what: `quality.commands.${name} (the story check)`,
    command: typeof check === "string" ? check : check.run,
  }));
  config.review.panel.forEach((reviewer, index) => {
    if (!("command" in reviewer)) return;
    const name = reviewer.name ?? `reviewer-${index + 1}`;
    checks.push({ what: `the review panel's reviewer ${name}`, command: reviewer.command });
  });
  return checks;
}

/** The test commands, for the scripts they run (`sh tools/test.sh`): test configuration like the runner's. */
export function testCommandScripts(config: Config): JudgingCheck[] {
  const { test, testScoped } = config.quality.commands;
  return [
    ...(test ? [{ what: "quality.commands.test", command: test }] : []),
    ...(testScoped ? [{ what: "quality.commands.testScoped", command: testScoped }] : []),
  ];
}
