import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { commitAll, git, write } from "./fixture-repo.js";

const made: string[] = [];
let cleanup = false;

/**
 * A repository on branch main whose one commit, "base", holds these files (path → content), removed when
 * the test process exits. `name` goes in the folder's name.
 */
export function committedRepo(files: Readonly<Record<string, string>>, name = "repo"): string {
  const top = mkdtempSync(join(tmpdir(), `gantry-${name}-`));
  made.push(top);
  if (!cleanup) {
    cleanup = true;
    process.on("exit", () => {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    });
  }
  for (const [path, content] of Object.entries(files)) write(top, path, content);
  commitAll(top);
  return top;
}

/**
 * A committed gantry project (.gantry/config.json, feature f's prd.json, src/x.ts, and `extra`) whose
 * user's index has every file's stat data, as git's status leaves it.
 */
export function gantryProject(name: string, extra: Readonly<Record<string, string>> = {}): string {
  const top = committedRepo(
    {
      ".gantry/features/f/prd.json": "{}\n",
      ".gantry/config.json": "{}\n",
      "src/x.ts": "1\n",
      ...extra,
    },
    name,
  );
  git(top, "update-index", "--refresh");
  return top;
}
