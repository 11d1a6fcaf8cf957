import { type Dirent, readdirSync } from "node:fs";
import { extname, join } from "node:path";
import { runGit } from "./exec.js";
import { GANTRY_DIR } from "./judge.js";

/** Extensions of files that hold code: an implementation hidden in an ignored file is one of these. */
const SOURCE = new Set(
  "js mjs cjs jsx ts mts cts tsx py go rs java kt kts scala rb php c h cc cpp hpp cs swift m sh vue svelte"
    .split(" ")
    .map((ext) => `.${ext}`),
);
/** A new ignored folder larger than this is taken for dependencies or caches and not looked into. */
const MAX_FOLDER_ENTRIES = 500;

/** Whether git ignores `path` (relative to `cwd`; a trailing `/` asks about a folder). */
export function isIgnored(cwd: string, path: string): Promise<boolean> {
  return runGit(cwd, ["check-ignore", "-q", "--", path]).then(
    () => true,
    () => false,
  );
}

/**
 * Untracked, ignored paths of the project (.gantry/ aside), relative to the repository's top level, a
 * wholly ignored folder as one entry `dir/`: git's own listing with the run's settings.
 */
export async function ignoredPaths(
  cwd: string,
  prefix: string,
  env: Readonly<Record<string, string>>,
): Promise<Set<string>> {
  const out = await runGit(
    cwd,
    [
      "ls-files",
      "--others",
      "--ignored",
      "--exclude-standard",
      "--directory",
      "--full-name",
      "-z",
      "--",
      `:(top)${prefix}`,
      `:(exclude,top)${prefix}${GANTRY_DIR}`,
    ],
    { ...env, GIT_OPTIONAL_LOCKS: "0" },
  );
  return new Set(out.split("\0").filter(Boolean));
}

/**
 * Source files among the ignored paths that appeared since `before`: code the tests could use that a
 * commit would not carry. Paths are relative to the repository's top level (`top`).
 */
export function newIgnoredSources(
  top: string,
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): string[] {
  const found: string[] = [];
  for (const path of after) {
    if (before.has(path)) continue;
    if (!path.endsWith("/")) {
      if (SOURCE.has(extname(path))) found.push(path);
      continue;
    }
    found.push(...sourcesIn(join(top, path)).map((file) => `${path}${file}`));
  }
  return found.sort();
}

/** The source files in a folder, or none when it holds more than MAX_FOLDER_ENTRIES entries (walk stops there). */
function sourcesIn(dir: string): string[] {
  const sources: string[] = [];
  const pending = [""];
  let seen = 0;
  while (pending.length > 0) {
    const sub = pending.pop() ?? "";
    let entries: Dirent[];
    try {
      entries = readdirSync(join(dir, sub), { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > MAX_FOLDER_ENTRIES) return [];
    for (const entry of entries) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) pending.push(rel);
      else if (SOURCE.has(extname(entry.name))) sources.push(rel);
    }
  }
  return sources;
}
