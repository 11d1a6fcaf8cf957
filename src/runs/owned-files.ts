import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/**
 * gantry's files outside the run directories: config.json, features/<f>/prd.json, specs. `serve/` is
 * the server's (token, devices, nonces, audit log): written while sessions run, never rolled back.
 */
const SKIPPED = new Set(["runs", "lock", "serve"]);
/** Bounds on what is copied: a .gantry/ larger than this is reported, not copied whole. */
const MAX_FILES = 5000;
const MAX_BYTES = 64 * 1024 * 1024;

/** Stands for a file that is not copied (too many, too large, not a plain file): never written back. */
const PLACEHOLDER = "\0not copied: ";
const isPlaceholder = (data: Buffer) => data.subarray(0, PLACEHOLDER.length).toString() === PLACEHOLDER;

export type OwnedFiles = Map<string, Buffer>;

/** Copies every gantry-owned file under `.gantry/` (run files and the lock aside) into memory. */
export function snapshotOwnedFiles(root: string): OwnedFiles {
  const base = join(root, ".gantry");
  const files: OwnedFiles = new Map();
  let bytes = 0;
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      if (dir === base && SKIPPED.has(name)) continue;
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile() && files.size < MAX_FILES && bytes + stat.size <= MAX_BYTES) {
        const data = readFileSync(path);
        bytes += data.length;
        files.set(relative(root, path), data);
      } else files.set(relative(root, path), Buffer.from(`${PLACEHOLDER}${stat.size} bytes`));
    }
  };
  walk(base);
  return files;
}

/**
 * Puts gantry's files back as they were in `before`: changed and removed files are rewritten, files that
 * appeared are removed. Returns what it changed, as `.gantry/...: changed | removed | added`.
 */
export function restoreOwnedFiles(root: string, before: OwnedFiles): string[] {
  const after = snapshotOwnedFiles(root);
  // Added files go first: one may sit inside a directory that replaced a file, which is put back next.
  const added = [...after.keys()].filter((path) => !before.has(path));
  for (const path of added) rmSync(join(root, path), { force: true });
  const changed: string[] = [];
  for (const [path, data] of before) {
    const now = after.get(path);
    if (now?.equals(data) || isPlaceholder(data)) continue;
    const target = join(root, path);
    rmSync(target, { force: true, recursive: true });
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, data);
    changed.push(`${path}: ${now === undefined ? "removed" : "changed"}`);
  }
  return [...changed, ...added.map((path) => `${path}: added`)];
}
