import type { z } from "zod";

/** Bad user input: names the file, the place in it and what was expected. Exit code 2, never a stack trace. */
export class InputError extends Error {
  readonly exitCode = 2;
  constructor(
    readonly file: string,
    readonly where: string,
    readonly expected: string,
  ) {
    super(where ? `${file}: ${where}: ${expected}` : `${file}: ${expected}`);
    this.name = "InputError";
  }
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
  hint?: (issue: z.core.$ZodIssue) => string | undefined,
): InputError {
  const extra = hint?.(issue);
  const message = issue.message.replace(/^Invalid input: /, "");
  return new InputError(file, formatPath(issue.path), extra ? `${message}; ${extra}` : message);
}

/** Parses JSON text, turning a syntax error into an InputError with line and column. */
export function parseJsonText(file: string, text: string): unknown {
  if (text.trim() === "") throw new InputError(file, "", "the file is empty; expected a JSON object");
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    let where = "";
    if (position?.[1]) {
      const before = text.slice(0, Number(position[1]));
      const line = before.split("\n").length;
      const column = before.length - before.lastIndexOf("\n");
      where = `line ${line}, column ${column}`;
    }
    const reason = message.replace(/ in JSON at position \d+.*$/s, "").replace(/^JSON\.parse: /, "");
    throw new InputError(file, where, `not valid JSON (${reason})`);
  }
}
