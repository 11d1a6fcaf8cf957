import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { trackedFiles } from "./tracked-files.js";

/** What a planning agent is shown of the repository: its file tree, package manifests and test layout. */
export interface RepoDigest {
  files: string[];
  /** How many tracked files were left out of `files`. */
  moreFiles: number;
  manifests: { path: string; text: string }[];
  tests: string[];
}

const MAX_FILES = 400;
const MAX_TESTS = 100;
const MAX_MANIFEST_CHARS = 4000;
const MANIFESTS = new Set([
  "package.json",
  "pyproject.toml",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
]);
const TEST_FILE =
  /(^|\/)(tests?|__tests__|spec)\/|[._-](test|spec)\.[a-z]+$|(^|\/)test_[^/]+\.py$|_test\.go$/;

export async function repoDigest(root: string): Promise<RepoDigest> {
  const all = [...(await trackedFiles(root))].filter((f) => !f.startsWith(".gantry/")).sort();
  const manifests = all
    .filter((f) => MANIFESTS.has(basename(f)) && f.split("/").length <= 2)
    .slice(0, 8)
    .map((path) => ({ path, text: readText(join(root, path)) }));
  return {
    files: all.slice(0, MAX_FILES),
    moreFiles: Math.max(0, all.length - MAX_FILES),
    manifests,
    tests: all.filter((f) => TEST_FILE.test(f)).slice(0, MAX_TESTS),
  };
}

function readText(path: string): string {
  try {
    const text = readFileSync(path, "utf8");
    return text.length > MAX_MANIFEST_CHARS ? `${text.slice(0, MAX_MANIFEST_CHARS)}\n[… cut]` : text;
  } catch {
    return "(unreadable)";
  }
}
