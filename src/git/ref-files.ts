import { type Dirent, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** No ref walk reads more entries than this; past it the caller asks git. */
const MAX_REF_ENTRIES = 100_000;

/** packed-refs as a map of ref name → id; empty when there is no such file. */
export function packedRefs(commonDir: string): Map<string, string> {
  const map = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(commonDir, "packed-refs"), "utf8");
  } catch {
    return map;
  }
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    const id = line.slice(0, space);
    if (space > 0 && OBJECT_ID.test(id)) map.set(line.slice(space + 1).trimEnd(), id);
  }
  return map;
}

/**
 * Every ref from the files git keeps them in (loose refs over packed-refs), without a git process, which
 * costs milliseconds where a file costs microseconds; undefined for a layout this does not read
 * (reftable) or a refs folder too large to walk, where the caller asks git.
 */
export function refsFromFiles(commonDir: string): Map<string, string> | undefined {
  if (existsSync(join(commonDir, "reftable"))) return undefined;
  const map = packedRefs(commonDir);
  const pending = ["refs"];
  let seen = 0;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(commonDir, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > MAX_REF_ENTRIES) return undefined;
    for (const entry of entries) {
      // No ref name has a part ending in .lock: such a file is a ref update in flight (another worker's
      // branch being made), which git's own listing leaves out too.
      if (entry.name.endsWith(".lock")) continue;
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) pending.push(rel);
      else if (entry.isFile()) {
        const id = readFileSync(join(commonDir, rel), "utf8").trim();
        if (OBJECT_ID.test(id)) map.set(rel, id);
      }
    }
  }
  return map;
}

/**
 * One ref's id from the files (a loose ref over packed-refs), as git looks it up: null when neither has it,
 * undefined when this cannot tell (reftable, GIT_COMMON_DIR set, a symbolic or unreadable ref file), and the
 * caller asks git.
 */
export function refFromFiles(commonDir: string, ref: string): string | null | undefined {
  if (process.env.GIT_COMMON_DIR) return undefined;
  if (!ref.startsWith("refs/") || ref.split("/").some((part) => part === "" || part === "." || part === ".."))
    return undefined;
  if (existsSync(join(commonDir, "reftable"))) return undefined;
  try {
    const loose = readFileSync(join(commonDir, ref), "utf8").trim();
    return OBJECT_ID.test(loose) ? loose : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return undefined;
  }
  return packedRefs(commonDir).get(ref) ?? null;
}
