import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";

export interface GitignoreUpdate {
  created: boolean;
  /** The entries that were appended; those already covered by a line are left alone. */
  added: string[];
  /** A line ignores the whole of `dir`, which would keep files meant for git out of it. */
  ignoresAll: boolean;
}

/** `/.gantry/runs/`, `.gantry/runs`, `.gantry/runs/**` → `.gantry/runs`. */
const normalize = (line: string): string =>
  line
    .trim()
    .replace(/^\//, "")
    .replace(/\/(\*\*?)?$/, "");

/**
 * Appends each of `entries` that no line of `<root>/.gitignore` already covers, creating the file when
 * it is missing. The existing text is kept byte for byte, its line ending (LF or CRLF) is used for the
 * new lines, and a file that did not end with a newline still does not.
 */
export function ensureGitignored(root: string, entries: readonly string[], dir: string): GitignoreUpdate {
  const path = join(root, ".gitignore");
  const created = !existsSync(path);
  const text = created ? "" : readFileSync(path, "utf8");
  const present = new Set(
    text
      .split(/\r?\n/)
      .filter((l) => !/^\s*[#!]/.test(l))
      .map(normalize),
  );
  const added = entries.filter((entry) => !present.has(normalize(entry)));
  const ignoresAll = present.has(normalize(dir));
  if (added.length > 0) {
    const eol = text.includes("\r\n") ? "\r\n" : "\n";
    const lines = added.join(eol);
    let next: string;
    if (text === "") next = `${lines}${eol}`;
    else if (text.endsWith("\n")) next = `${text}${lines}${eol}`;
    else next = `${text}${eol}${lines}`;
    writeFileAtomic(path, next);
  }
  return { created: created && added.length > 0, added, ignoresAll };
}
