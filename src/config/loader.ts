import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { z } from "zod";
import { suggestKey } from "../util/suggest-key.js";
import { formatPath, fromZodIssue, InputError, inputErrors, parseJsonText } from "./input-error.js";
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

/**
 * Validates a config object; throws every problem at once (an InputErrors when there are several), each
 * naming `file` and its place, an unknown key with the known key it is probably a typo of.
 */
export function parseConfig(file: string, raw: unknown): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.flatMap((issue) => {
    const known = issue.code === "unrecognized_keys" && !hint(issue) ? knownKeys(issue.path) : [];
    return issue.code === "unrecognized_keys" && known.length > 0
      ? unknownKeys(file, issue.path, issue.keys, known, raw)
      : [fromZodIssue(file, issue, "GANTRY_E_CONFIG", hint)];
  });
  throw inputErrors(
    errors.length > 0 ? errors : [new InputError(file, "", "invalid configuration", "GANTRY_E_CONFIG")],
  );
}

/** One error per unknown key: `did you mean "commands"?` when it is near a known one, else the known ones. */
function unknownKeys(
  file: string,
  path: readonly PropertyKey[],
  keys: readonly string[],
  known: readonly string[],
  raw: unknown,
): InputError[] {
  const present = new Set(Object.keys(valueAt(raw, path) ?? {}));
  return keys.map((key) => {
    const suggestion = suggestKey(key, known, {}, present);
    const expected = suggestion
      ? `unknown key "${key}"; did you mean "${suggestion}"?`
      : `unknown key "${key}"; expected one of ${known.join(", ")}`;
    return new InputError(file, formatPath(path), expected, "GANTRY_E_CONFIG");
  });
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): Record<string, unknown> | undefined {
  let value = raw;
  for (const key of path) value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
  return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}

/** The keys the config schema knows at `path` (an object's, through defaults and optionals). */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema = unwrap(ConfigSchema as unknown as z.ZodType);
  for (const key of path) {
    const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
    const next = shape?.[String(key)];
    if (!next) return [];
    schema = unwrap(next);
  }
  return Object.keys((schema as unknown as { shape?: object }).shape ?? {});
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let depth = 0; depth < 10; depth++) {
    const inner = (current.def as { innerType?: z.ZodType }).innerType;
    if (!inner) break;
    current = inner;
  }
  return current;
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
