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
  const result = await lookupShell(`command -v -- ${quoted} >/dev/null 2>&1 || ${quoted}`, cwd, env);
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

/**
 * programProblem for several command lines, asked of one /bin/sh: the lookups requested before the event
 * loop next turns (the pre-flight's agent and quality commands) go out together, each program word once,
 * instead of a shell each. A word the shell does not find is asked again alone, for the shell's own words.
 */
export function programLookups(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): (command: string) => Promise<string | undefined> {
  let pending: Map<string, ((problem: Promise<string | undefined>) => void)[]> | undefined;
  const flush = async (batch: Map<string, ((problem: Promise<string | undefined>) => void)[]>) => {
    const words = [...batch.keys()];
    const missing = await missingWords(words, cwd, env);
    for (const [i, word] of words.entries()) {
      const answer =
        missing && !missing.has(i) ? Promise.resolve(undefined) : programProblem(shellQuote(word), cwd, env);
      for (const settle of batch.get(word) ?? []) settle(answer);
    }
  };
  return (command) => {
    const word = programWord(command);
    if (word === undefined || word.includes("/")) return programProblem(command, cwd, env);
    if (!pending) {
      const batch = new Map<string, ((problem: Promise<string | undefined>) => void)[]>();
      pending = batch;
      setImmediate(() => {
        pending = undefined;
        void flush(batch);
      });
    }
    const waiting = pending.get(word) ?? [];
    pending.set(word, waiting);
    return new Promise<string | undefined>((settle) => waiting.push(settle));
  };
}

/** The indexes of the words `command -v` does not find, in one shell; undefined when that shell failed. */
async function missingWords(
  words: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Set<number> | undefined> {
  const result = await lookupShell(
    `i=0; for w in ${words.map(shellQuote).join(" ")}; do i=$((i+1)); command -v -- "$w" >/dev/null 2>&1 || echo "$i"; done`,
    cwd,
    env,
  );
  if (result.exitCode !== 0 || result.timedOut || result.spawnError) return undefined;
  return new Set(
    result.output
      .split("\n")
      .filter((line) => /^\d+$/.test(line.trim()))
      .map((line) => Number(line.trim()) - 1),
  );
}

/** A lookup's shell: short, bounded, and only its tail kept. */
function lookupShell(command: string, cwd: string, env: NodeJS.ProcessEnv) {
  return execCommand({
    command,
    cwd,
    env,
    timeoutMs: LOOKUP_TIMEOUT_MS,
    killGraceMs: 500,
    tailBytes: 4096,
  });
}
