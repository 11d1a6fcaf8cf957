import { readFileSync } from "node:fs";
import type { z } from "zod";
import { ERRORS, type InputErrorCode } from "../model/errors.js";
import { escapeControls } from "../util/text.js";

/**
 * Bad user input: names the file, the place in it and what was expected. Exit code 2, never a stack trace.
 * The message is always one line of bounded length: control characters from the input (a key with a
 * newline, a NUL in an id) are escaped, and a value of thousands of characters is shortened.
 */
export class InputError extends Error {
  readonly exitCode: number;
  readonly where: string;
  readonly expected: string;
  constructor(
    readonly file: string,
    where: string,
    expected: string,
    readonly code: InputErrorCode,
  ) {
    const shownWhere = escapeControls(where);
    const shownExpected = escapeControls(expected);
    super(shownWhere ? `${file}: ${shownWhere}: ${shownExpected}` : `${file}: ${shownExpected}`);
    this.name = "InputError";
    this.exitCode = ERRORS[code].exit;
    this.where = shownWhere;
    this.expected = shownExpected;
  }
}

/**
 * Several problems in one input, all found in one reading: each is its own line. The first is this error's
 * own message, so a caller that shows one line still shows a true one.
 */
export class InputErrors extends InputError {
  constructor(readonly all: readonly InputError[]) {
    const first = all[0] as InputError;
    super(first.file, first.where, first.expected, first.code);
  }
}

/** The one error, or all of them in one. */
export function inputErrors(errors: readonly InputError[]): InputError {
  return errors.length === 1 ? (errors[0] as InputError) : new InputErrors(errors);
}

/** `userStories[2].acceptanceCriteria` from zod's path array. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || "(top level)";
}

export function fromZodIssue(
  file: string,
  issue: z.core.$ZodIssue,
  code: InputErrorCode,
  hint?: (issue: z.core.$ZodIssue) => string | undefined,
): InputError {
  const extra = hint?.(issue);
  const message = issue.message.replace(/^Invalid input: /, "");
  return new InputError(file, formatPath(issue.path), extra ? `${message}; ${extra}` : message, code);
}

/** Parses JSON text, turning a syntax error into an InputError with line and column. */
export function parseJsonText(file: string, text: string): unknown {
  if (text.trim() === "")
    throw new InputError(
      file,
      "line 1, column 1",
      "the file is empty; expected a JSON object",
      "GANTRY_E_JSON",
    );
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = syntaxErrorPosition(message, text);
    let where = "";
    if (position !== undefined) {
      const before = text.slice(0, position);
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      where = `line ${line}, column ${column}`;
    }
    const reason = message
      .replace(/ (in JSON )?at position \d+.*$/s, "")
      .replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, "")
      .replace(/^JSON\.parse: /, "");
    throw new InputError(file, where, `not valid JSON (${reason})`, "GANTRY_E_JSON");
  }
}

/**
 * Where JSON.parse stopped: "at position N" when the message says so, else the offset of the first
 * character that is not valid JSON there, found by scanning the text (V8 names no position for an
 * unexpected token or an unexpected end, and its excerpt of the text may hold the very newline at fault).
 */
function syntaxErrorPosition(message: string, text: string): number | undefined {
  const at = /position (\d+)/.exec(message);
  if (at?.[1]) return Number(at[1]);
  return firstInvalidOffset(text);
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/**
 * The offset of the first character where `text` stops being JSON, or undefined if it is JSON. A
 * stack, not recursion: a file of a million nested arrays must not overflow. Only runs on a failed parse.
 */
export function firstInvalidOffset(text: string): number | undefined {
  let i = 0;
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
  };
  /** Reads one string at i (at its opening quote); false at the offending character. */
  const string = (): boolean => {
    i++;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const next = text[i + 1];
        if (next === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i += 2;
        else {
          i++;
          return false;
        }
      } else i++;
    }
    return false;
  };
  /** Reads a scalar or opens a container at i; false at the offending character. */
  const stack: ("[" | "{")[] = [];
  const value = (): boolean => {
    const c = text[i];
    if (c === '"') return string();
    if (c === "[" || c === "{") {
      stack.push(c);
      i++;
      return true;
    }
    for (const pattern of [NUMBER, LITERAL]) {
      pattern.lastIndex = i;
      if (pattern.test(text)) {
        i = pattern.lastIndex;
        return true;
      }
    }
    return false;
  };
  // States: expecting a value, or after a value (a comma, a closing bracket, or the end).
  let expectValue = true;
  let justOpened = false;
  for (;;) {
    skip();
    if (i >= text.length) return stack.length === 0 && !expectValue ? undefined : i;
    const top = stack.at(-1);
    if (expectValue) {
      if (justOpened && text[i] === (top === "[" ? "]" : "}")) {
        stack.pop();
        i++;
        expectValue = false;
        justOpened = false;
        continue;
      }
      if (top === "{") {
        if (text[i] !== '"' || !string()) return i;
        skip();
        if (text[i] !== ":") return i;
        i++;
        skip();
        if (i >= text.length) return i;
      }
      const before = stack.length;
      if (!value()) return i;
      justOpened = stack.length > before;
      expectValue = justOpened;
      continue;
    }
    if (top === undefined) return i;
    if (text[i] === ",") {
      i++;
      expectValue = true;
      continue;
    }
    if (text[i] === (top === "[" ? "]" : "}")) {
      stack.pop();
      i++;
      continue;
    }
    return i;
  }
}

/** A user's file as text; a missing or unreadable one is an InputError naming it (`whenMissing` says what to do). */
export function readInputFile(path: string, display: string, whenMissing: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(
      display,
      "",
      code === "ENOENT" ? whenMissing : `cannot read (${code})`,
      "GANTRY_E_FILE",
    );
  }
}
