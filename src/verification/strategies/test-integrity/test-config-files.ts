import { posix } from "node:path";
import {
  type ConfigFinding,
  canonical,
  clip,
  firstDifference,
  lineOf,
  normalize,
  parseObject,
  sectionChange,
  stringRecord,
  testBlock,
} from "./config-text.js";
import { reachedScripts, scriptChanges } from "./package-scripts.js";
import { configTexts, type TreeChange } from "./tree-diff.js";

export type { ConfigFinding };

/** Files that configure a test runner as a whole: any change to one is a finding. */
const WHOLE_FILES = [
  /^\.?pytest\.ini$/,
  /^pytest\.toml$/,
  // What npm, yarn, bun and Python load before any test: node options, preloaded modules, site hooks.
  /^\.npmrc$/,
  /^\.yarnrc(?:\.yml)?$/,
  /^bunfig\.toml$/,
  /^(?:usercustomize|sitecustomize)\.py$/,
  /^conftest\.py$/,
  /^(?:vitest|jest)\.(?:config|workspace|setup)\.[cm]?[jt]sx?$/,
  /^jest\.config\.json$/,
  /^vitest\.workspace\.json$/,
  /^\.mocharc(?:\.(?:js|cjs|mjs|json|jsonc|yml|yaml))?$/,
];
/** Files where only one section configures the tests: the section's header, as a predicate on its name. */
const SECTION_FILES: Record<string, (section: string) => boolean> = {
  "pyproject.toml": (name) => name === "tool.pytest" || name.startsWith("tool.pytest."),
  "setup.cfg": (name) => name === "tool:pytest",
  "tox.ini": (name) => name === "pytest",
};
const VITE_CONFIG = /^vite\.config\.[cm]?[jt]s$/;
/** Make and just files: test configuration when a test command runs make or just. */
const TASK_FILES = /^(?:GNUmakefile|[Mm]akefile|[Jj]ustfile|\.justfile)$/;
const RUNS_TASKS = /(?:^|[\s;&|(])(?:make|gmake|just)(?:\s|$)/;
/** package.json keys that configure a runner whole. */
const PACKAGE_RUNNER_KEYS = ["jest", "mocha"];
/** npm script names that are about tests whatever the configured commands say. */
const TEST_SCRIPT = /^(?:pre|post)?test(?:$|[:._-])/;

/** Whether a path is one of the test configuration files this module judges. */
export function isTestConfigFile(path: string): boolean {
  const base = posix.basename(path);
  return (
    WHOLE_FILES.some((pattern) => pattern.test(base)) ||
    base in SECTION_FILES ||
    VITE_CONFIG.test(base) ||
    TASK_FILES.test(base) ||
    base === "package.json"
  );
}

/**
 * Changes from base to the judged tree that alter what the test command runs or how: runner config
 * files, the pytest sections of shared files, a vite config's `test` block, and in package.json the
 * scripts the configured test commands invoke (and every `test*` script) and the jest / mocha keys.
 */
export async function testConfigChanges(input: {
  root: string;
  base: string;
  tree: string;
  changes: readonly TreeChange[];
  testCommands: readonly string[];
}): Promise<ConfigFinding[]> {
  const texts = await configTexts(input, isTestConfigFile);
  return texts.flatMap(({ path, before, after }) => compareConfig(path, before, after, input.testCommands));
}

/** One config file's base and current text (undefined: absent) compared; exported for unit tests. */
export function compareConfig(
  path: string,
  before: string | undefined,
  after: string | undefined,
  testCommands: readonly string[],
): ConfigFinding[] {
  if (before === after) return [];
  const base = posix.basename(path);
  if (WHOLE_FILES.some((pattern) => pattern.test(base))) {
    if (after === undefined) return [{ file: path, evidence: `${base} deleted: it configures the tests` }];
    if (before === undefined) return [{ file: path, evidence: `${base} added: it configures the tests` }];
    const at = firstDifference(before.split("\n"), after.split("\n"));
    return [{ file: path, line: at.line, evidence: `${base} changed at line ${at.line}: ${at.text}` }];
  }
  const section = SECTION_FILES[base];
  if (section) {
    const change = sectionChange(before, after, section);
    if (!change) return [];
    const { was, now, at, line } = change;
    const what = now.header ?? was.header ?? "the pytest section";
    return [{ file: path, ...(line ? { line } : {}), evidence: `${what} changed: ${at.text}` }];
  }
  if (VITE_CONFIG.test(base)) {
    const was = testBlock(before ?? "");
    const now = testBlock(after ?? "");
    if (normalize(was.text) === normalize(now.text)) return [];
    return [
      {
        file: path,
        ...(now.line ? { line: now.line } : {}),
        evidence: `the test block of ${base} changed: ${clip(normalize(now.text) || "(removed)")}`,
      },
    ];
  }
  if (base === "package.json") return comparePackage(path, before, after, testCommands);
  if (TASK_FILES.test(base) && testCommands.some((command) => RUNS_TASKS.test(command))) {
    const at = firstDifference((before ?? "").split("\n"), (after ?? "").split("\n"));
    const what =
      before === undefined ? "added" : after === undefined ? "deleted" : `changed at line ${at.line}`;
    return [
      {
        file: path,
        ...(after ? { line: at.line } : {}),
        evidence: `${base} ${what}: the test command runs it`,
      },
    ];
  }
  return [];
}

function comparePackage(
  path: string,
  before: string | undefined,
  after: string | undefined,
  testCommands: readonly string[],
): ConfigFinding[] {
  const was = parseObject(before ?? "{}");
  const now = parseObject(after ?? "{}");
  if (!now)
    return [
      { file: path, evidence: "package.json is no longer valid JSON: the test scripts cannot be read" },
    ];
  if (!was) return [];
  const wasScripts = stringRecord(was.scripts);
  const nowScripts = stringRecord(now.scripts);
  const names = testScripts(testCommands, wasScripts, nowScripts);
  const findings = scriptChanges(path, names, wasScripts, nowScripts, after);
  for (const key of PACKAGE_RUNNER_KEYS) {
    if (canonical(was[key]) === canonical(now[key])) continue;
    const line = lineOf(after ?? "", `"${key}"`);
    findings.push({ file: path, ...(line ? { line } : {}), evidence: `the "${key}" runner config changed` });
  }
  return findings;
}

/**
 * The scripts the test commands reach: every `test*` script, each script a test command names through
 * npm / pnpm / yarn / bun (`npm test`, `npm run test:unit`), and the scripts those name in turn.
 */
export function testScripts(
  testCommands: readonly string[],
  ...scriptSets: Record<string, string>[]
): string[] {
  return reachedScripts(testCommands, TEST_SCRIPT, scriptSets);
}
