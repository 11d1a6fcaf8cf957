/**
 * The sections of a prompt that carry what gantry found, for the roles that fix it: rectify's failures, the
 * status verify judged and the gate that sent it back; autofix's review findings; the review panel's notes.
 */
import type { DecidedFinding, ReviewCheck } from "../model/review.js";
import {
  type FeedbackGate,
  type TestFailure,
  UNREADABLE_MEANING,
  type VerifyStatus,
} from "../model/verify.js";
import { truncate } from "../util/text.js";
import { fenced, listOf, listText, type Section } from "./prompt-fit.js";

/** The status verify judged, its reason, the first lines of an output it could not read, and the gate that judged. */
export interface FeedbackVerdict {
  status: VerifyStatus;
  reason?: string;
  outputHead?: string[];
  gate?: FeedbackGate;
}

/** The most of a test or check log that goes in, before any cut for size. */
const RAW_TAIL = 8_000;
/** One failure's message, at most. */
const FAILURE_MESSAGE = 2_000;

/** What each gate judged after green tests found, as the rectify prompt's section says it. */
const GATE_HEADING: Record<FeedbackGate, string> = {
  "test-integrity":
    "## What test-integrity found\n\nThe tests pass, but your change weakened what judges it (tests, their configuration, or the lint / type checks).\n\n",
  "test-strength":
    "## What test-strength found\n\nThe tests pass, but some of them pass without your production change too.\n\n",
  "story-check":
    "## What the between-stories check found\n\nThe tests pass, but the project's build / smoke / demo check fails on your tree.\n\n",
  "review-decision":
    "## What the review panel found\n\nThe tests pass, but the review panel's blocking findings stand.\n\n",
};

/** What rectify is given: the parsed failures, then a bounded tail of the raw output. */
export function rectifySections(input: {
  failures?: TestFailure[];
  rawOutputTail?: string;
  verdict?: FeedbackVerdict;
}): Section[] {
  const gate = input.verdict?.gate;
  const heading = gate
    ? GATE_HEADING[gate]
    : "## Failing tests\n\nThe project's tests fail after your change. Fix the code (not the tests' intent).\n\n";
  const failures = (input.failures ?? []).map(
    (f) => `- ${f.file ? `${f.file}: ` : ""}${f.name}: ${clip(f.message, FAILURE_MESSAGE)}`,
  );
  const unreadable = verdictSection(input.verdict);
  const out: Section[] = [
    ...(unreadable ? [unreadable] : []),
    failures.length > 0
      ? { text: listText(heading, failures), cut: 7, shrink: listOf(heading, failures) }
      : { text: `${heading}(no structured failures were parsed; see the output below)\n` },
  ];
  const tail = (input.rawOutputTail ?? "").slice(-RAW_TAIL).trim();
  if (tail) out.push(fenced("### Output (tail)", tail, 1));
  return out;
}

const WHAT_IT_MEANS: Partial<Record<VerifyStatus, string>> = {
  UNPARSED:
    "No test verdict could be read from the test command's output (no runner summary gantry knows), so the story cannot pass until one can.",
  NO_TESTS: "The test command ran no test: a story passes only on tests that ran and passed.",
  BUILD_ERROR: "The tests did not build or load, so none of them ran: fix that first.",
};

/** A status that is no test verdict (UNPARSED, NO_TESTS, BUILD_ERROR) is said in those words, first. */
function verdictSection(verdict: FeedbackVerdict | undefined): Section | undefined {
  const meaning = verdict && UNREADABLE_MEANING[verdict.status];
  if (!verdict || !meaning) return undefined;
  const reason = verdict.reason ? `\n\n${clip(verdict.reason, FAILURE_MESSAGE)}` : "";
  const head = verdict.outputHead?.length
    ? `\n\nThe first lines of the output gantry could not read:\n\n\`\`\`\n${verdict.outputHead.join("\n")}\n\`\`\``
    : "";
  return {
    text: `## Test status: ${verdict.status} (${meaning})\n\n${WHAT_IT_MEANS[verdict.status]}${reason}${head}\n`,
  };
}

/** What autofix is given: each failing review check's findings, or its output's tail. */
export function autofixSections(input: { findings?: ReviewCheck[] }): Section[] {
  const out: Section[] = [
    {
      text: "## Review findings\n\nLint or typecheck fail. Fix every finding below without changing behaviour.\n",
    },
  ];
  for (const check of input.findings ?? []) {
    if (check.success) continue;
    const heading = `### ${check.name} (exit code ${check.exitCode})\n\n`;
    if (check.findings.length > 0) {
      const lines = check.findings.map((f) => `- ${f}`);
      out.push({ text: listText(heading, lines), cut: 6, shrink: listOf(heading, lines) });
    } else {
      out.push(
        fenced(
          `### ${check.name} (exit code ${check.exitCode}), output tail`,
          check.output.slice(-RAW_TAIL).trim(),
          2,
        ),
      );
    }
  }
  return out;
}

/** The panel's non-blocking findings, each with where it is and, for a lowered blocker, why it does not block. */
export function reviewNotesSection(notes: DecidedFinding[]): Section {
  const heading =
    "## Review panel findings to fix\n\nReviewers raised these; none blocks the story on its own, but fix them too.\n\n";
  const lines = notes.map(
    (n) =>
      `- ${n.file}${n.line > 0 ? `:${n.line}` : ""}${n.ruleId ? ` [${n.ruleId}]` : ""} (${n.reviewer}): ${clip(n.text, FAILURE_MESSAGE)}${n.loweredBecause ? ` — raised as blocking, lowered: ${n.loweredBecause}` : ""}`,
  );
  return { text: listText(heading, lines), cut: 6, shrink: listOf(heading, lines) };
}

const clip = (text: string, max: number) => truncate(text, max + 4, " […]");
