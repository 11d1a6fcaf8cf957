import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { InputError } from "../config/input-error.js";
import { STORY_ID_PATTERN } from "../prd/story.js";

export const FEATURES_DIR = ".gantry/features";

/** The project root from --dir, checked to exist. */
export function projectRoot(dir: string | undefined): string {
  const root = resolve(dir ?? ".");
  if (!existsSync(root)) throw new InputError("--dir", "", `no such directory: ${root}`, "GANTRY_E_USAGE");
  return root;
}

export function featurePrdPath(root: string, feature: string): { path: string; display: string } {
  if (!STORY_ID_PATTERN.test(feature)) {
    throw new InputError(
      "--feature",
      "",
      `expected a feature name of letters, digits, '.', '_' or '-', got ${JSON.stringify(feature)}`,
      "GANTRY_E_USAGE",
    );
  }
  const path = join(root, FEATURES_DIR, feature, "prd.json");
  return { path, display: relative(process.cwd(), path) || path };
}

/** Every feature that has a prd.json, by name. */
export function listFeatures(root: string): string[] {
  const dir = join(root, FEATURES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "prd.json")))
    .map((d) => d.name)
    .sort();
}
