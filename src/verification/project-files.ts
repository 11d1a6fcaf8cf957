import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Never part of the project's own code: dependencies, build output, caches, gantry's own files. */
export const SKIPPED_DIRS = new Set([
  "node_modules",
  ".git",
  "dist",
  ".gantry",
  "coverage",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  ".next",
  ".turbo",
]);

export interface ProjectFiles {
  /** Project-relative, `/`-separated, sorted. */
  files: string[];
  /** The walk stopped at `limit` files. */
  truncated: boolean;
}

/** Walks `projectRoot` without following symbolic links, skipping SKIPPED_DIRS at any depth. */
export async function listProjectFiles(projectRoot: string, limit = 200_000): Promise<ProjectFiles> {
  const files: string[] = [];
  const pending = [""];
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(join(projectRoot, dir), { withFileTypes: true });
    } catch {
      continue; // Removed or unreadable while we walked.
    }
    for (const entry of entries) {
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) pending.push(path);
      } else if (entry.isFile()) {
        if (files.length >= limit) return { files: files.sort(), truncated: true };
        files.push(path);
      }
    }
  }
  return { files: files.sort(), truncated: false };
}
