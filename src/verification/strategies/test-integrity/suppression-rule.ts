import { posix } from "node:path";
import type { SuppressionHit } from "./suppressions.js";

export interface SuppressionContext {
  /** `verify.suppressions`: `reasoned` lets a specific one in production code through; `none` fails them all. */
  rule: "reasoned" | "none";
  testFile: boolean;
  /** What the lint / type checks reported when they last failed in this story. */
  reported: readonly string[];
  path: string;
}

/**
 * Why an added suppression fails test-integrity, or undefined for one the story may add (shown with the
 * verdict): a specific suppression in production code that does not silence exactly what a check reported
 * in this story. Blanket ones, any in a test file, and the one that turns off the failure the gate just
 * reported (its code, in the output that named this file) fail.
 */
export function suppressionFault(hit: SuppressionHit, context: SuppressionContext): string | undefined {
  if (context.rule === "none") return "and verify.suppressions is none";
  if (context.testFile) return "in a test file";
  if (!hit.specific) return "blanket (it names no rule or error code, or covers the whole file)";
  const silenced = hit.codes.find((code) => reportedHere(code, context));
  if (silenced) return `silencing ${silenced}, exactly what the lint / type check reported for this file`;
  return undefined;
}

function reportedHere(code: string, { reported, path }: SuppressionContext): boolean {
  const file = posix.basename(path);
  const word = new RegExp(`(?<![\\w-])${code.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?![\\w-])`);
  return reported.some((output) => output.includes(file) && word.test(output));
}
