// CSI sequences (colours, cursor moves) first, then any other C0 / C1 control character.
const ESC = "\u001b";
const CSI = new RegExp(`${ESC}\\[[0-?]*[ -/]*[@-~]`, "g");
// Any run of whitespace (line and paragraph separators too) or C0 / C1 control characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const BREAKING_RUN = /[\s\u0000-\u001f\u007f-\u009f]+/g;

/**
 * One line of plain text: escape codes dropped, each run of whitespace, line breaks and other control
 * characters one space; cut to `max` characters (marked with …) when given.
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  const line = withoutEscapeCodes(text).replace(BREAKING_RUN, " ").trim();
  return truncate(line, max);
}

/** Text without terminal escape sequences (colours, cursor moves). */
export function withoutEscapeCodes(text: string): string {
  return text.replace(CSI, "");
}

export function truncate(text: string, max: number, mark = "…"): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - mark.length)) + mark;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what escapeControls shows.
const CONTROL = /[\u0000-\u001f\u007f]/g;
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
/** Longest run of non-blank characters shown whole; a longer one keeps its start and says how long it was. */
const MAX_RUN = 120;

/**
 * Input quoted back to its author: each control character written as its escape (`\n`, `\u0000`), so the
 * exact bad value shows on one line, and a very long run of text shortened, saying how long it was.
 */
export function escapeControls(text: string): string {
  const escaped = text.replace(
    CONTROL,
    (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return escaped.replace(
    new RegExp(`[^\\s]{${MAX_RUN + 1},}`, "g"),
    (run) => `${run.slice(0, 40)}…(${run.length} characters)`,
  );
}
