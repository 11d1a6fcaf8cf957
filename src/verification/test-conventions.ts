import { posix } from "node:path";

/**
 * Naming conventions that tie a test file to the source it tests, across the ecosystems gantry drives:
 * `src/a/b.ts` ↔ `src/a/b.test.ts`, `src/a/__tests__/b.test.ts`, `test/a/b.test.ts`, `tests/a/b.spec.js`;
 * `src/x.py` ↔ `tests/test_x.py`; `pkg/x.go` ↔ `pkg/x_test.go`. Both sides are reduced to keys (the path
 * with source and test roots taken out) and a test maps to a source when they share a key.
 */

/** Source families: a test only maps to sources of its own family (a .tsx test may test a .ts module). */
const FAMILIES: Record<string, string> = {
  ".ts": "js",
  ".tsx": "js",
  ".mts": "js",
  ".cts": "js",
  ".js": "js",
  ".jsx": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".py": "py",
  ".go": "go",
  ".rb": "rb",
  ".rs": "rs",
  ".java": "java",
  ".kt": "kt",
  ".php": "php",
  ".cs": "cs",
  ".swift": "swift",
  ".ex": "ex",
  ".exs": "ex",
};

/** Directories that hold tests; under them every JS/TS file is a test (as node --test and jest see it). */
const TEST_DIRS = new Set(["test", "tests", "__tests__"]);
/** Left out of keys so a source and its mirrored test meet. */
const ROOT_DIRS = new Set(["src", "lib", "test", "tests", "__tests__"]);
/** Never tests, whatever their files are called: inputs for tests. */
const FIXTURE_DIRS = new Set(["fixtures", "__fixtures__", "testdata", "__snapshots__", "node_modules"]);
/** Under a test directory, but support code rather than tests. */
const SUPPORT_DIRS = new Set(["helpers", "helper", "support", "utils", "mocks", "__mocks__", "setup"]);
const SUPPORT_STEMS =
  /^(setup|teardown|global-?setup|global-?teardown|helpers?|utils|test-?utils|conftest)$|\.config$|\.setup$/i;
/** Names too common to map by stem alone, across directories. */
const MODULE_STEMS = new Set(["index", "__init__", "main", "mod"]);

const TEST_PREFIX = /^test[_-]/i;
const TEST_SUFFIX = /[._-](test|spec)$/i;

export function familyOf(path: string): string | undefined {
  const base = posix.basename(path);
  if (/\.d\.[cm]?ts$/.test(base)) return undefined;
  return FAMILIES[posix.extname(base).toLowerCase()];
}

/** `*.test.*`, `*.spec.*`, `test_*.py`, `*_test.py`, `*_test.go`, and JS/TS files under test/, tests/, __tests__/. */
export function isTestFile(path: string): boolean {
  const family = familyOf(path);
  if (!family) return false;
  const parts = path.split("/");
  const dirs = parts.slice(0, -1);
  if (dirs.some((dir) => FIXTURE_DIRS.has(dir))) return false;
  const stem = stemOf(parts.at(-1) ?? "");
  if (family === "go") return stem.endsWith("_test");
  if (family === "py") return /^test_/.test(stem) || stem.endsWith("_test");
  if (TEST_PREFIX.test(stem) || TEST_SUFFIX.test(stem) || stem === "test") return true;
  if (family !== "js") return false;
  const testDir = dirs.findIndex((dir) => TEST_DIRS.has(dir));
  if (testDir < 0) return false;
  return !dirs.slice(testDir + 1).some((dir) => SUPPORT_DIRS.has(dir)) && !SUPPORT_STEMS.test(stem);
}

/** Keys under which a test file is found by the sources it may test. */
export function testKeys(path: string): string[] {
  const family = familyOf(path);
  if (!family) return [];
  const parts = path.split("/");
  const dirs = parts.slice(0, -1);
  const stem = stemOf(parts.at(-1) ?? "")
    .replace(TEST_PREFIX, "")
    .replace(TEST_SUFFIX, "");
  // `cart.e2e.test.ts` and `cart.test.ts` both test `cart`.
  const stems = unique([stem, stem.split(".")[0] ?? stem]).filter(Boolean);
  const keys = stems.map((s) => mirrorKey(family, dirs, s));
  // A flat test directory (`tests/test_x.py`) tests a module of that stem anywhere in its package.
  const last = dirs.at(-1);
  if (last !== undefined && TEST_DIRS.has(last)) {
    const prefix = dirs.slice(0, -1).filter((dir) => !ROOT_DIRS.has(dir));
    for (const s of stems) if (!MODULE_STEMS.has(s)) keys.push(flatKey(family, prefix, s));
  }
  return unique(keys);
}

/** Keys under which a source file looks for its tests. */
export function sourceKeys(path: string): string[] {
  const family = familyOf(path);
  if (!family) return [];
  const parts = path.split("/");
  const dirs = parts.slice(0, -1);
  const stem = stemOf(parts.at(-1) ?? "");
  const keys = [mirrorKey(family, dirs, stem)];
  // `src/a/index.ts` is module `a`: `test/a.test.ts` tests it.
  if (MODULE_STEMS.has(stem) && dirs.length > 0)
    keys.push(mirrorKey(family, dirs.slice(0, -1), dirs.at(-1) ?? ""));
  if (!MODULE_STEMS.has(stem)) {
    const root = dirs.findIndex((dir) => dir === "src" || dir === "lib");
    // The package is what comes before src/ or lib/; without either, any ancestor may be it.
    const prefixes = root >= 0 ? [dirs.slice(0, root)] : dirs.map((_, i) => dirs.slice(0, i)).concat([dirs]);
    for (const prefix of prefixes) keys.push(flatKey(family, prefix, stem));
  }
  return unique(keys);
}

function mirrorKey(family: string, dirs: string[], stem: string): string {
  return `${family}:${[...dirs.filter((dir) => !ROOT_DIRS.has(dir)), stem].join("/")}`;
}

function flatKey(family: string, prefix: string[], stem: string): string {
  return `${family}:${[...prefix, "*", stem].join("/")}`;
}

function stemOf(base: string): string {
  const ext = posix.extname(base);
  return ext ? base.slice(0, -ext.length) : base;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}
