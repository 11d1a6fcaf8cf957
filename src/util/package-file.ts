import { existsSync } from "node:fs";

let root: URL | undefined;

/**
 * A file shipped with gantry (`schemas/…`), by its path from the package's root. The root is the nearest
 * folder above this module holding a package.json: from src/util (tsx), .test-build/src/util (the compiled
 * tests), dist/ or dist/chunks/ (the bundle, where a module's own URL no longer says how deep it was).
 */
export function packageFile(path: string): URL {
  if (!root) {
    let dir = new URL("./", import.meta.url);
    while (!existsSync(new URL("package.json", dir))) {
      const up = new URL("../", dir);
      if (up.href === dir.href) throw new Error(`no package.json above ${import.meta.url}`);
      dir = up;
    }
    root = dir;
  }
  return new URL(path, root);
}
