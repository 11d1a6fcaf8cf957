import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { InputError } from "../config/input-error.js";
import { EXIT } from "../model/exit-codes.js";
import { FEATURES_DIR, featurePrdPath, projectRoot } from "./project.js";

export const SPEC_TEMPLATE = (feature: string) => `# ${feature}

## Goal

What the user can do when this feature is done, in one or two sentences.

## Context

What exists already: the files, modules or commands this builds on.

## Constraints

What must not change; libraries, formats or limits to respect.

## Acceptance

- An outcome a test can observe (a value returned, an exit code, a message shown).
`;

/** `gantry features new F`: a spec.md to write the feature in, then `gantry plan` turns it into stories. */
export async function featuresNewCommand(feature: string, options: { dir?: string }): Promise<number> {
  const root = projectRoot(options.dir);
  featurePrdPath(root, feature); // checks the name
  const path = join(root, FEATURES_DIR, feature, "spec.md");
  const display = relative(process.cwd(), path) || path;
  if (existsSync(path))
    throw new InputError(display, "", "already exists; edit it, then run gantry plan", "GANTRY_E_EXISTS");
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, SPEC_TEMPLATE(feature), { flag: "wx" });
  process.stdout.write(`created ${display}\nnext: write the spec, then gantry plan --feature ${feature}\n`);
  return EXIT.ok;
}
