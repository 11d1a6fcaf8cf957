import { UNREADABLE_MEANING, type VerifyStatus } from "../model/verify.js";
import { normalizeOutput } from "./parsers/normalize.js";

const HEAD_LINES = 8;
const HEAD_LINE_CHARS = 200;

/** The first non-blank lines of a test log, colours stripped and each clipped: what gantry could not read. */
export function outputHead(output: string, lines = HEAD_LINES): string[] {
  const head: string[] = [];
  for (const line of normalizeOutput(output.slice(0, 64 * 1024)).split("\n")) {
    if (!line.trim()) continue;
    head.push(line.length > HEAD_LINE_CHARS ? `${line.slice(0, HEAD_LINE_CHARS)}…` : line);
    if (head.length >= lines) break;
  }
  return head;
}

/** A line that says what went wrong: `E   ModuleNotFoundError: …`, `error[E0425]: …`, `SyntaxError: …`. */
const ERROR_LINE = /^E\s{2,}\S|\b[A-Z]\w*(?:Error|Exception)\b:|\berror(?:\[\w+\])?:/;

/**
 * The lines to quote for a status that is no test verdict: for a BUILD_ERROR the lines that name the error,
 * each once (a runner's banner says nothing about it), else the output's first lines.
 */
export function unreadableHead(status: VerifyStatus, output: string): string[] {
  if (status === "BUILD_ERROR") {
    const errors = [...new Set(outputHead(output, 10_000).filter((l) => ERROR_LINE.test(l)))];
    if (errors.length > 0) return errors.slice(0, HEAD_LINES);
  }
  return outputHead(output);
}

/**
 * The reason of a status that is not a test verdict, led by the status and what it means, so that every
 * place that shows it says UNPARSED, NO_TESTS or BUILD_ERROR in those words:
 * `UNPARSED: the test output could not be read (no pytest summary line found); it begins: "..." / "..."`.
 */
export function unreadableReason(status: VerifyStatus, reason: string | undefined, head: string[]): string {
  const meaning = UNREADABLE_MEANING[status];
  if (!meaning) return reason ?? "";
  const why = reason ? ` (${reason})` : "";
  // A build error the parser named is said once; its output's lines add the runner's banner at best.
  if (status === "BUILD_ERROR" && reason) return `${status}: ${meaning}${why}`;
  const begins = head.length
    ? `; it begins: ${head
        .slice(0, 3)
        .map((l) => JSON.stringify(l.length > 100 ? `${l.slice(0, 100)}…` : l))
        .join(" / ")}`
    : status === "UNPARSED"
      ? "; it printed nothing"
      : "";
  return `${status}: ${meaning}${why}${begins}`;
}
