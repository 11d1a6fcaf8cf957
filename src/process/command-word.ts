/**
 * Whether the program a shell command line starts can be found, asked of /bin/sh itself before anything
 * is spent on it. Only the first word is looked at, and only when it is plain text: a word with `$`, a
 * backtick or a glob, or a line that opens a subshell or a group, is left to the shell at run time.
 */
import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { shellQuote } from "../util/shell-quote.js";
import { execCommand } from "./executor.js";

const LOOKUP_TIMEOUT_MS = 5000;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The program word of a command line (`npm` in `CI=1 npm test`), quotes removed; undefined when it cannot
 * be told without running the shell.
 */
export function programWord(command: string): string | undefined {
  let rest = command.trimStart();
  for (;;) {
    const word = leadingWord(rest);
    if (!word) return undefined;
    if (ASSIGNMENT.test(word.raw)) {
      rest = rest.slice(word.length).trimStart();
      continue;
    }
    if (/^[({!<>&|;]/.test(word.raw) || /[$`*?[\]~]/.test(word.raw)) return undefined;
    return word.text;
  }
}

/** The first shell word of `text`: its raw form, its text with quotes removed, and its length. */
function leadingWord(text: string): { raw: string; text: string; length: number } | undefined {
  let i = 0;
  let out = "";
  while (i < text.length && !/[\s;&|<>()]/.test(text[i] as string)) {
    const c = text[i] as string;
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return undefined;
      out += text.slice(i + 1, end);
      i = end + 1;
    } else if (c === "\\") {
      out += text[i + 1] ?? "";
      i += 2;
    } else {
      out += c;
      i++;
    }
  }
  if (i === 0) return text.length > 0 ? { raw: text[0] as string, text: "", length: 1 } : undefined;
  return { raw: text.slice(0, i), text: out, length: i };
}

/**
 * Undefined when /bin/sh finds the command's program in `cwd` with `env` (a builtin, a keyword, a file on
 * PATH, an executable path), else why not, in the shell's own words ("sh: 1: claude: not found").
 */
export async function programProblem(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const word = programWord(command);
  if (word === undefined) return undefined;
  if (word.includes("/")) return pathProblem(resolve(cwd, word), word);
  // `command -v` answers without running anything; only when it finds nothing is the word run, to have
  // the shell say so in its words (it cannot run what it did not find).
  const quoted = shellQuote(word);
  const result = await execCommand({
    command: `command -v -- ${quoted} >/dev/null 2>&1 || ${quoted}`,
    viaHelper: true,
    cwd,
    env,
    timeoutMs: LOOKUP_TIMEOUT_MS,
    killGraceMs: 500,
    tailBytes: 4096,
  });
  if (result.exitCode === 0) return undefined;
  if (result.spawnError) return `/bin/sh could not start: ${result.spawnError}`;
  if (result.timedOut) return undefined;
  return lastLine(result.output) ?? `"${word}" not found (exit code ${result.exitCode ?? result.signal})`;
}

function pathProblem(path: string, word: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return `${word}: is not a file`;
    accessSync(path, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" ? `${word}: not found` : `${word}: Permission denied`;
  }
}

function lastLine(output: string): string | undefined {
  return output
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
}
