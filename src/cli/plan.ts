import { join, relative, resolve } from "node:path";
import { InputError, readInputFile } from "../config/input-error.js";
import { loadConfig } from "../config/loader.js";
import type { Config } from "../config/schema.js";
import { SPEC_TEMPLATE } from "./features.js";
import { FEATURES_DIR, featurePrdPath, projectRoot } from "./project.js";

export interface PlanCommandOptions {
  feature: string;
  from?: string;
  dir?: string;
  dryRun?: boolean;
  /** commander's `--no-critic`: false when given. */
  critic?: boolean;
}

/** `gantry plan --feature F [--from FILE] [--dry-run]`: stories from a spec, by an agent in role `plan`. */
export async function planCommand(options: PlanCommandOptions): Promise<number> {
  const root = projectRoot(options.dir);
  return planInto(root, loadConfig(root), options);
}

/** Plans a feature for `gantry plan` and `gantry run --plan`, Ctrl-C stopping the session. */
export async function planInto(root: string, config: Config, options: PlanCommandOptions): Promise<number> {
  const { path, display } = featurePrdPath(root, options.feature);
  const spec = readSpec(root, options);
  const untouched = templateSections(spec, options.feature);
  if (untouched.length > 0)
    process.stderr.write(
      `gantry: warning: the spec still holds the template's placeholder text under ${untouched.join(", ")} (from gantry features new); the plan is only as good as the spec\n`,
    );
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const { planFeature } = await import("../pipeline/plan.js");
    return await planFeature({
      root,
      feature: options.feature,
      config,
      spec,
      prdPath: path,
      display,
      dryRun: Boolean(options.dryRun),
      noCritic: options.critic === false,
      signal: controller.signal,
      out: (line) => process.stdout.write(`${line}\n`),
      warn: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

function readSpec(root: string, options: PlanCommandOptions): string {
  const path = options.from ? resolve(options.from) : join(root, FEATURES_DIR, options.feature, "spec.md");
  const display = relative(process.cwd(), path) || path;
  const text = readInputFile(
    path,
    options.from ? "--from" : display,
    options.from
      ? `no such file: ${display}`
      : `no such file; write one with gantry features new ${options.feature}`,
  );
  if (text.trim() === "") throw new InputError(display, "", "the spec is empty", "GANTRY_E_PLAN");
  return text;
}

/** The headings under which a spec still has the placeholder line `gantry features new` wrote. */
export function templateSections(spec: string, feature: string): string[] {
  const lines = new Set(spec.split(/\r?\n/).map((line) => line.trim()));
  const sections: string[] = [];
  let heading = "";
  for (const line of SPEC_TEMPLATE(feature).split("\n")) {
    if (line.startsWith("## ")) heading = line.slice(3);
    else if (heading && line.trim() !== "" && lines.has(line.trim())) sections.push(heading);
  }
  return sections;
}
