import { posix } from "node:path";
import {
  canonical,
  firstDifference,
  lineOf,
  parseObject,
  sectionChange,
  stringRecord,
} from "./config-text.js";
import { CHECK_SCRIPT, isNamed, namedCheckConfigs } from "./named-configs.js";
import { reachedScripts, scriptChanges } from "./package-scripts.js";
import { type ConfigFinding, testScripts } from "./test-config-files.js";
import { configTexts, type TreeChange } from "./tree-diff.js";

/**
 * Files that configure a linter, formatter or type checker as a whole, by file name (anywhere in the tree:
 * tsconfig, eslint and biome configs nest), with the tool they configure for the evidence.
 */
const WHOLE_FILES: [RegExp, string][] = [
  [/^biome\.jsonc?$/, "biome"],
  [/^\.eslintrc(?:\.(?:js|cjs|mjs|json|yaml|yml))?$/, "eslint"],
  [/^eslint\.config\.[cm]?[jt]s$/, "eslint"],
  [/^\.eslintignore$/, "eslint"],
  [/^\.?oxlintrc\.json$/, "oxlint"],
  [/^[tj]sconfig(?:[.-][\w.-]+)?\.json$/, "typescript"],
  [/^\.prettierrc(?:\.\w+)?$/, "prettier"],
  [/^prettier\.config\.[cm]?[jt]s$/, "prettier"],
  [/^\.prettierignore$/, "prettier"],
  [/^\.stylelintrc(?:\.\w+)?$/, "stylelint"],
  [/^stylelint\.config\.[cm]?[jt]s$/, "stylelint"],
  [/^\.dependency-cruiser\.(?:[cm]?js|json)$/, "dependency-cruiser"],
  [/^\.?ruff\.toml$/, "ruff"],
  [/^\.?mypy\.ini$/, "mypy"],
  [/^\.flake8$/, "flake8"],
  [/^pyrightconfig\.json$/, "pyright"],
  [/^\.?pylintrc$/, "pylint"],
  [/^\.golangci\.(?:ya?ml|toml|json)$/, "golangci-lint"],
  [/^staticcheck\.conf$/, "staticcheck"],
  [/^\.?clippy\.toml$/, "clippy"],
  [/^\.?rustfmt\.toml$/, "rustfmt"],
  [/^\.rubocop(?:_todo)?\.ya?ml$/, "rubocop"],
  [/^\.swiftlint\.ya?ml$/, "swiftlint"],
  [/^phpstan\.neon(?:\.dist)?$/, "phpstan"],
  [/^\.?phpcs\.xml(?:\.dist)?$/, "phpcs"],
  [/^\.clang-tidy$/, "clang-tidy"],
];
const PY_TOOLS = /^(?:flake8|pycodestyle|pydocstyle|isort|mypy(?:-.+)?|pylint(?:\..+)?)$/;
/** Files where only some sections configure a checker: the section's header, as a predicate on its name. */
const SECTION_FILES: Record<string, (section: string) => boolean> = {
  "pyproject.toml": (name) =>
    /^tool\.(?:ruff|mypy|pyright|basedpyright|pylint|flake8|black|isort|pydocstyle|pyre)(?:\.|$)/.test(name),
  "setup.cfg": (name) => PY_TOOLS.test(name) || name === "tool:isort",
  "tox.ini": (name) => PY_TOOLS.test(name),
  "Cargo.toml": (name) => /^(?:workspace\.)?lints(?:\.|$)/.test(name),
};
/** package.json keys that configure a checker whole. */
const PACKAGE_CHECK_KEYS = ["eslintConfig", "eslintIgnore", "prettier", "stylelint"];

function wholeFileTool(base: string): string | undefined {
  return WHOLE_FILES.find(([pattern]) => pattern.test(base))?.[1];
}

/** Whether a path is one of the lint / type-check configuration files this module judges. */
export function isCheckConfigFile(path: string): boolean {
  const base = posix.basename(path);
  return wholeFileTool(base) !== undefined || base in SECTION_FILES || base === "package.json";
}

/**
 * Changes from base to the judged tree that alter what the lint and type-check commands judge: checker
 * config files, the checker sections of shared files, and in package.json the scripts the configured
 * `lint` / `typecheck` commands reach (and every `lint*` / `typecheck*` script) and the checker keys.
 * A script the test commands also reach is the test-config check's finding, not found twice. A file
 * the commands name after a config flag (`eslint -c lint/rules.cjs`) counts as a whole, whatever its name.
 */
export async function checkConfigChanges(input: {
  root: string;
  base: string;
  tree: string;
  changes: readonly TreeChange[];
  checkCommands: readonly string[];
  testCommands: readonly string[];
}): Promise<ConfigFinding[]> {
  const named = await namedCheckConfigs(input);
  const texts = await configTexts(input, (path) => isCheckConfigFile(path) || isNamed(path, named));
  return texts.flatMap(({ path, before, after }) =>
    isCheckConfigFile(path)
      ? compareCheckConfig(path, before, after, input.checkCommands, input.testCommands)
      : wholeFileChange(
          path,
          `${path} (named by the lint / type-check command as its configuration)`,
          before,
          after,
        ),
  );
}

/** A file that counts as a whole: deleted, added, or its first changed line, as `what`. */
export function wholeFileChange(
  path: string,
  what: string,
  before: string | undefined,
  after: string | undefined,
): ConfigFinding[] {
  if (before === after) return [];
  if (after === undefined) return [{ file: path, evidence: `${what} deleted` }];
  if (before === undefined) return [{ file: path, evidence: `${what} added` }];
  const at = firstDifference(before.split("\n"), after.split("\n"));
  return [{ file: path, line: at.line, evidence: `${what} changed at line ${at.line}: ${at.text}` }];
}

/** One config file's (isCheckConfigFile) base and current text (undefined: absent) compared; exported for unit tests. */
export function compareCheckConfig(
  path: string,
  before: string | undefined,
  after: string | undefined,
  checkCommands: readonly string[],
  testCommands: readonly string[],
): ConfigFinding[] {
  const base = posix.basename(path);
  const tool = wholeFileTool(base);
  if (tool) return wholeFileChange(path, `${base} (${tool} configuration)`, before, after);
  const section = SECTION_FILES[base];
  if (section) {
    const change = sectionChange(before, after, section);
    if (!change) return [];
    const { was, now, at, line } = change;
    // The section the change is in, as shared files hold several checkers' sections.
    const header = (lines: string[]) =>
      lines
        .slice(0, at.index + 1)
        .findLast((text) => /^\s*\[/.test(text))
        ?.trim();
    // One of the two has lines, and a section's lines start with its header.
    const what = header(now.lines) ?? header(was.lines);
    return [{ file: path, ...(line ? { line } : {}), evidence: `${what} changed: ${at.text}` }];
  }
  // The one config file left by isCheckConfigFile.
  return comparePackage(path, before, after, checkCommands, testCommands);
}

function comparePackage(
  path: string,
  before: string | undefined,
  after: string | undefined,
  checkCommands: readonly string[],
  testCommands: readonly string[],
): ConfigFinding[] {
  const was = parseObject(before ?? "{}");
  const now = parseObject(after ?? "{}");
  // An unreadable package.json is the test-config check's finding already; a base that was unreadable is no baseline.
  if (!now || !was) return [];
  const wasScripts = stringRecord(was.scripts);
  const nowScripts = stringRecord(now.scripts);
  const tests = new Set(testScripts(testCommands, wasScripts, nowScripts));
  const names = reachedScripts(checkCommands, CHECK_SCRIPT, [wasScripts, nowScripts]).filter(
    (name) => !tests.has(name),
  );
  const findings = scriptChanges(path, names, wasScripts, nowScripts, after);
  for (const key of PACKAGE_CHECK_KEYS) {
    if (canonical(was[key]) === canonical(now[key])) continue;
    const line = lineOf(after ?? "", `"${key}"`);
    findings.push({ file: path, ...(line ? { line } : {}), evidence: `the "${key}" checker config changed` });
  }
  return findings;
}
