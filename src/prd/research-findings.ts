import { posix } from "node:path";
import { z } from "zod";
import { READINESS_GAP_CODES, type ReadinessFinding } from "../model/readiness.js";

/** What a research session writes to the file gantry names. */
export const ResearchAnswerSchema = z.looseObject({
  findings: z
    .array(
      z.looseObject({
        gap: z.enum(READINESS_GAP_CODES),
        clarification: z.string().max(10_000).default(""),
        criteria: z.array(z.string().min(1).max(2_000)).max(50).default([]),
        citations: z
          .array(
            z.looseObject({
              path: z.string().min(1).max(1_000),
              line: z.number().int().positive(),
              quote: z.string().max(2_000),
            }),
          )
          .max(50),
      }),
    )
    .max(50),
});

/** A quote shorter than this proves nothing (`}` is on many lines). */
export const MIN_QUOTE_CHARS = 12;

export interface TreeReader {
  /** Files git tracks, relative to the project root. */
  tracked: ReadonlySet<string>;
  /** A tracked file's text, or undefined when it cannot be read. */
  read(path: string): string | undefined;
}

export interface CheckedFindings {
  verified: ReadinessFinding[];
  /** One line per finding turned down, saying why. */
  rejected: string[];
}

/**
 * Keeps a finding only when every one of its citations (at least one) is a tracked file whose cited line
 * holds the quoted text verbatim. The agent is untrusted: nothing it says counts until gantry found it.
 */
export function checkFindings(raw: unknown, tree: TreeReader): CheckedFindings {
  const parsed = ResearchAnswerSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      verified: [],
      rejected: [`the answer is not findings JSON: ${issue?.path.join(".")}: ${issue?.message}`],
    };
  }
  const verified: ReadinessFinding[] = [];
  const rejected: string[] = [];
  parsed.data.findings.forEach((finding, i) => {
    const problem =
      finding.citations.length === 0
        ? "cites nothing"
        : finding.citations.map((c) => citationProblem(c, tree)).find((p) => p !== undefined);
    if (problem) {
      rejected.push(`findings[${i}] (${finding.gap}): ${problem}`);
      return;
    }
    verified.push({
      gap: finding.gap,
      clarification: finding.clarification,
      criteria: finding.criteria,
      citations: finding.citations.map(({ path, line, quote }) => ({ path, line, quote })),
    });
  });
  return { verified, rejected };
}

/** Why a citation does not hold (the first reason), or undefined when its line holds the quote. */
export function citationProblem(
  citation: { path: string; line: number; quote: string },
  tree: TreeReader,
): string | undefined {
  const where = `${citation.path}:${citation.line}`;
  const path = posix.normalize(citation.path.replace(/^\.\//, ""));
  if (path.startsWith("../") || posix.isAbsolute(path) || path.startsWith(".gantry/")) {
    return `${where} is not a file of the project`;
  }
  if (!tree.tracked.has(path)) return `${where}: no such tracked file`;
  const quote = citation.quote.trim();
  if (quote.length < MIN_QUOTE_CHARS) return `${where}: quote shorter than ${MIN_QUOTE_CHARS} characters`;
  const text = tree.read(path);
  if (text === undefined) return `${where}: cannot be read`;
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop(); // the end of the last line, not a line of its own
  const line = lines[citation.line - 1];
  if (line === undefined) return `${where}: the file has no line ${citation.line}`;
  if (!line.includes(quote)) return `${where} does not hold ${JSON.stringify(quote.slice(0, 80))}`;
  return undefined;
}
