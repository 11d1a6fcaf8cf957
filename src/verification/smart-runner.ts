import { isAbsolute, posix, relative } from "node:path";
import { shellQuote } from "../util/shell-quote.js";
import { type ImportGraph, reverseImportGraph } from "./import-graph.js";
import { listProjectFiles, SKIPPED_DIRS } from "./project-files.js";
import { isTestFile, sourceKeys, testKeys } from "./test-conventions.js";

/**
 * Which tests a change touches: the changed tests themselves, the tests named after a changed module
 * (test-conventions.ts), and the tests that import a changed module, directly or through other modules
 * (import-graph.ts). When nothing maps, or so much maps that the scoped run would not be much cheaper
 * than the suite, the answer is the full suite, with the reason.
 */
export interface TestSelection {
  mode: "scoped" | "full";
  /** Project-relative test files to run, sorted; empty when the mode is full. */
  files: string[];
  reason: string;
}

export interface SelectTestsOptions {
  projectRoot: string;
  /** Relative to the project root, as `changedFiles` (src/git/changed-files.ts) returns them; deleted ones too. */
  changedFiles: readonly string[];
  /** Every file of the project, relative to its root; walked (skipping node_modules, .git, dist, .gantry, ...) when absent. */
  allFiles?: readonly string[];
  /** More test files than this and the full suite runs instead. Default 50. */
  maxFiles?: number;
  /** More than this share of all test files and the full suite runs instead. Default 0.5. */
  maxShare?: number;
  /** How many importers deep a change is followed; a deeper chain means the full suite. Default 25. */
  maxDepth?: number;
  /** Above this many JS/TS/Python files the import graph is not built and the full suite runs. Default 20,000. */
  maxGraphFiles?: number;
}

/** Files whose change can affect any test: dependencies, compiler and test-runner configuration. */
const SUITE_WIDE =
  /^(package\.json|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?|jsconfig\.json|tsconfig(\..+)?\.json|(vitest|vite|jest|babel|playwright|karma)\.config\.[cm]?[jt]s|\.babelrc(\..+)?|\.mocharc(\..+)?|\.swcrc|pyproject\.toml|setup\.py|setup\.cfg|tox\.ini|pytest\.ini|conftest\.py|requirements.*\.txt|Pipfile(\.lock)?|poetry\.lock|uv\.lock|go\.mod|go\.sum|Cargo\.toml|Cargo\.lock)$/;

export async function selectTests(options: SelectTestsOptions): Promise<TestSelection> {
  const maxFiles = options.maxFiles ?? 50;
  const maxShare = options.maxShare ?? 0.5;
  const maxDepth = options.maxDepth ?? 25;
  const maxGraphFiles = options.maxGraphFiles ?? 20_000;

  const changed = unique(options.changedFiles.map((file) => normalize(options.projectRoot, file))).filter(
    (file): file is string => file !== undefined && !file.split("/").some((part) => SKIPPED_DIRS.has(part)),
  );
  if (changed.length === 0) return full("no changed files to map tests from");
  const suiteWide = changed.find((file) => SUITE_WIDE.test(posix.basename(file)));
  if (suiteWide) return full(`${suiteWide} changed, and it can affect every test`);

  let all: string[];
  if (options.allFiles) {
    all = unique(options.allFiles.map((file) => normalize(options.projectRoot, file))).filter(
      (file): file is string => file !== undefined,
    );
  } else {
    const listed = await listProjectFiles(options.projectRoot);
    if (listed.truncated)
      return full(`the project has more than ${listed.files.length} files to look through`);
    all = listed.files;
  }
  const existing = new Set(all);
  const tests = all.filter(isTestFile);
  if (tests.length === 0)
    return full("no test maps to the changed files (the project has no recognisable test files)");

  const graphFiles = all.filter((file) => /\.([cm]?[jt]sx?|py)$/.test(file)).length;
  if (graphFiles > maxGraphFiles) {
    return full(`${graphFiles} source files are more than the import graph is built for (${maxGraphFiles})`);
  }
  const graph = await reverseImportGraph(options.projectRoot, all, new Set([...all, ...changed]));
  const byKey = new Map<string, string[]>();
  for (const test of tests) {
    for (const key of testKeys(test)) {
      const list = byKey.get(key);
      if (list) list.push(test);
      else byKey.set(key, [test]);
    }
  }

  const direct = new Set<string>();
  const byName = new Set<string>();
  const byImport = new Set<string>();
  const unmapped: string[] = [];
  for (const file of changed) {
    const found = new Set<string>();
    if (existing.has(file) && isTestFile(file)) {
      direct.add(file);
      found.add(file);
    }
    const walk = importersOf(file, graph, maxDepth);
    if (walk.tooDeep) return full(`the import chain from ${file} is deeper than ${maxDepth} modules`);
    for (const importer of walk.importers) {
      if (!isTestFile(importer)) continue;
      byImport.add(importer);
      found.add(importer);
    }
    for (const source of [file, ...walk.importers]) {
      if (isTestFile(source)) continue;
      for (const test of sourceKeys(source).flatMap((key) => byKey.get(key) ?? [])) {
        byName.add(test);
        found.add(test);
      }
    }
    if (found.size === 0) unmapped.push(file);
  }

  const files = [...new Set([...direct, ...byName, ...byImport])].filter((file) => existing.has(file)).sort();
  if (files.length === 0) return full("no test maps to the changed files");
  if (files.length > maxFiles) {
    return full(`${files.length} test files map to the changed files, more than the limit of ${maxFiles}`);
  }
  if (files.length > tests.length * maxShare) {
    return full(
      `${files.length} of ${tests.length} test files map to the changed files, more than ${share(maxShare)} of them`,
    );
  }
  const how = [
    direct.size > 0 ? `${direct.size} changed` : "",
    byName.size > 0 ? `${byName.size} by name` : "",
    byImport.size > 0 ? `${byImport.size} through imports` : "",
  ].filter(Boolean);
  const untested = unmapped.length > 0 ? `; no test maps to ${listed(unmapped)}` : "";
  return {
    mode: "scoped",
    files,
    reason: `${count(files.length, "test file")} for ${count(changed.length, "changed file")} (${how.join(", ")})${untested}`,
  };
}

/**
 * `template` with every `{{files}}` replaced by the files, each in single quotes (an embedded quote as
 * '\'' ), separated by spaces. A file starting with "-" gets "./" so no command reads it as an option.
 * A template without the placeholder comes back unchanged.
 */
export function scopedCommand(template: string, files: readonly string[]): string {
  // A file named like an option (`-x`) is passed as a path, not read as one.
  const list = files.map((file) => shellQuote(file.startsWith("-") ? `./${file}` : file)).join(" ");
  return template.replace(/\{\{\s*files\s*\}\}/g, () => list);
}

/** Everything that imports `file`, directly or through other files, breadth first, at most `maxDepth` deep. */
function importersOf(
  file: string,
  graph: ImportGraph,
  maxDepth: number,
): { importers: Set<string>; tooDeep: boolean } {
  const seen = new Set<string>([file]);
  let frontier = [file];
  for (let depth = 0; frontier.length > 0; depth += 1) {
    const next: string[] = [];
    for (const node of frontier) {
      for (const importer of graph.get(node) ?? []) {
        if (seen.has(importer)) continue;
        seen.add(importer);
        next.push(importer);
      }
    }
    if (next.length > 0 && depth >= maxDepth) return { importers: seen, tooDeep: true };
    frontier = next;
  }
  seen.delete(file);
  return { importers: seen, tooDeep: false };
}

function normalize(projectRoot: string, file: string): string | undefined {
  const slashed = file.replaceAll("\\", "/");
  const rel = isAbsolute(slashed) ? relative(projectRoot, slashed).replaceAll("\\", "/") : slashed;
  const clean = posix.normalize(rel).replace(/^\.\//, "");
  if (clean === "." || clean === ".." || clean.startsWith("../") || clean.startsWith("/")) return undefined;
  return clean;
}

function full(reason: string): TestSelection {
  return { mode: "full", files: [], reason };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function share(fraction: number): string {
  return fraction === 0.5 ? "half" : `${Math.round(fraction * 100)}%`;
}

function listed(files: string[]): string {
  return files.length <= 3
    ? files.join(", ")
    : `${files.slice(0, 3).join(", ")} and ${files.length - 3} more`;
}
