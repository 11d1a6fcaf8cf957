import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { formatPath } from "../config/input-error.js";
import { writeFileAtomic } from "../util/atomic-write.js";

/** Checks a built-in reporter's options; the loader names the reporter and the config entry when this throws. */
export function parseOptions<T extends z.ZodType>(schema: T, options: unknown): z.output<T> {
  const parsed = schema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => {
    const message = i.message.replace(/^Invalid input: /, "");
    return i.path.length > 0 ? `${formatPath(i.path)}: ${message}` : message;
  });
  throw new Error(`invalid options: ${issues.join("; ")}`);
}

export const NoOptions = z.strictObject({});

/** `{ outputFile? }` for reporters that write one file into the run directory. */
export const FileOptions = (defaultName: string) =>
  z.strictObject({
    outputFile: z.string().min(1).default(defaultName).describe("relative to the run directory"),
  });

/** Writes a report whole (temp file and rename), creating its directory. */
export function writeReport(runDir: string, outputFile: string, content: string): string {
  const path = resolve(runDir, outputFile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, content);
  return path;
}
