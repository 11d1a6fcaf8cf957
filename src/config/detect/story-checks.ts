/**
 * The between-stories checks `gantry init` proposes (quality.commands build and smoke): only what the
 * project itself declares, since each one set becomes the mandatory `story-check` gate and a wrong guess
 * would halt every run. A `demo` (a server and the line it prints when up) is the user's to write.
 */
import type { StoryCheckName } from "../story-check-schema.js";
import { ProjectFiles } from "./types.js";

export interface ProposedCheck {
  command: string;
  source: string;
}

export function detectStoryChecks(root: string): Partial<Record<StoryCheckName, ProposedCheck>> {
  const files = new ProjectFiles(root);
  const found: Partial<Record<StoryCheckName, ProposedCheck>> = {};
  const scripts = packageScripts(files);
  if (scripts.build) found.build = { command: "npm run build", source: "package.json scripts.build" };
  else if (files.isFile("go.mod")) found.build = { command: "go build ./...", source: "go.mod" };
  else if (files.isFile("Cargo.toml")) found.build = { command: "cargo build --quiet", source: "Cargo.toml" };
  for (const name of ["smoke", "test:smoke", "smoke-test"]) {
    if (scripts[name]) {
      found.smoke = { command: `npm run ${name}`, source: `package.json scripts.${name}` };
      break;
    }
  }
  return found;
}

function packageScripts(files: ProjectFiles): Record<string, string> {
  const text = files.read("package.json");
  if (!text) return {};
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (!scripts || typeof scripts !== "object") return {};
    return Object.fromEntries(
      Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    // The other detectors report a package.json that is not JSON.
    return {};
  }
}
