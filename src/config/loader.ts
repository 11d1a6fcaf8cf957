import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { z } from "zod";
import { fromZodIssue, InputError, parseJsonText } from "./input-error.js";
import { type Config, ConfigSchema, HOOK_EVENTS } from "./schema.js";

export const CONFIG_PATH = ".gantry/config.json";

/** Values from the command line that override the file. */
export interface ConfigOverrides {
  regressionMode?: Config["execution"]["regression"]["mode"];
  reporters?: string[];
}

function hint(issue: z.core.$ZodIssue): string | undefined {
  if (issue.code === "unrecognized_keys" && issue.path.length === 1 && issue.path[0] === "hooks") {
    return `valid hook events: ${HOOK_EVENTS.join(", ")}`;
  }
  return undefined;
}

/** Validates a config object; throws the first problem as an InputError naming `file`. */
export function parseConfig(file: string, raw: unknown): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (!issue) throw new InputError(file, "", "invalid configuration", "GANTRY_E_CONFIG");
    throw fromZodIssue(file, issue, "GANTRY_E_CONFIG", hint);
  }
  return parsed.data;
}

/** Loads `.gantry/config.json` under `root` (defaults when absent) and applies CLI overrides. */
export function loadConfig(root: string, overrides: ConfigOverrides = {}): Config {
  const path = join(root, CONFIG_PATH);
  const display = relative(process.cwd(), path) || path;
  const raw = existsSync(path) ? parseJsonText(display, readFileSync(path, "utf8")) : {};
  const config = parseConfig(display, raw);
  if (overrides.regressionMode) config.execution.regression.mode = overrides.regressionMode;
  if (overrides.reporters?.length) config.reporters = overrides.reporters;
  return config;
}
