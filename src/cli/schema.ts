import { readFileSync } from "node:fs";
import { InputError } from "../config/input-error.js";
import { packageFile } from "../util/package-file.js";

export const SCHEMA_NAMES = ["config", "prd", "hook-payload"] as const;

/** `gantry schema [name]`: prints a committed JSON Schema (generated from the zod schemas). */
export async function schemaCommand(name: string): Promise<number> {
  if (!(SCHEMA_NAMES as readonly string[]).includes(name)) {
    throw new InputError(
      "schema",
      "name",
      `expected one of ${SCHEMA_NAMES.join(", ")}, got ${JSON.stringify(name)}`,
      "GANTRY_E_NOT_FOUND",
    );
  }
  const url = packageFile(`schemas/${name}.schema.json`);
  process.stdout.write(readFileSync(url, "utf8"));
  return 0;
}
