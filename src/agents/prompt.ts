import type { AgentRole } from "../model/agent.js";
import type { ReadinessFinding } from "../model/readiness.js";
import type { DecidedFinding, ReviewCheck } from "../model/review.js";
import {
  type FeedbackGate,
  type TestFailure,
  UNREADABLE_MEANING,
  type VerifyStatus,
} from "../model/verify.js";
import type { Story } from "../prd/story.js";
import { truncate } from "../util/text.js";
import { markerContract } from "./completion-marker.js";
import { fenced, fit, headOf, listOf, listText, type Section } from "./prompt-fit.js";

/** A story this one depends on, as the prompt names it. */
export interface DependencySummary {
  id: string;
  title: string;
  status: string;
}

export interface PromptInput {
  role: AgentRole;
  story: Story;
  feature: string;
  /** The stories `story.dependencies` names, with their status; ids not found are listed as unknown. */
  dependencies?: DependencySummary[];
  /** For rectify: the parsed failures, then a bounded tail of the raw output. */
  failures?: TestFailure[];
  rawOutputTail?: string;
  /** For rectify: the status verify judged, its reason, and the first lines of an output it could not read. */
  verdict?: { status: VerifyStatus; reason?: string; outputHead?: string[]; gate?: FeedbackGate };
  /** For autofix: the review checks (the failing ones are used). */
  findings?: ReviewCheck[];
  /** For rectify and autofix: the review panel's findings that do not block, to fix all the same. */
  reviewNotes?: DecidedFinding[];
  /** `agent.maxPromptChars`. */
  maxChars?: number;
  /** The story was left in flight by an earlier run (interrupted or killed): its work is in the tree. */
  resumed?: boolean;
}

export const DEFAULT_MAX_PROMPT_CHARS = 60_000;
/** The most of a test or check log that goes in, before any cut for size. */
const RAW_TAIL = 8_000;
/** One failure's message, at most. */
const FAILURE_MESSAGE = 2_000;

/**
 * The one place a story and a role become the text an agent is given: the story (title, description,
 * acceptance criteria), its dependencies, the files its text names, then what the role needs (failures
 * first and then a bounded output tail for rectify; the findings for autofix), then the instructions.
 */
export function buildPrompt(input: PromptInput): string {
  const { story } = input;
  const sections: Section[] = [
    {
      text: `# ${roleHeading(input.role, input.verdict?.gate)}: ${story.id} — ${story.title}\n\nFeature: ${input.feature}\n`,
    },
  ];
  if (story.description.trim()) {
    const heading = "## Description\n\n";
    sections.push({
      text: `${heading}${story.description.trim()}\n`,
      cut: 5,
      shrink: headOf(heading, story.description.trim()),
    });
  }
  if (story.acceptanceCriteria.length > 0) {
    sections.push({
      text: `## Acceptance criteria\n\n${story.acceptanceCriteria.map((c) => `- ${c}`).join("\n")}\n`,
    });
  }
  const clarifications = verifiedClarifications(story);
  if (clarifications.length > 0) {
    const heading =
      "## Clarifications (found in the repository by research; gantry checked every citation)\n\n";
    sections.push({
      text: listText(heading, clarifications),
      cut: 5,
      shrink: listOf(heading, clarifications),
    });
  }
  if (input.resumed) sections.push({ text: RESUMED });
  const deps = dependencyLines(story, input.dependencies);
  if (deps.length > 0) {
    const heading = "## Dependencies (done before this story)\n\n";
    sections.push({ text: listText(heading, deps), cut: 4, shrink: listOf(heading, deps) });
  }
  const files = filesNamed(story);
  if (files.length > 0) {
    const heading = "## Files the story names\n\n";
    const lines = files.map((f) => `- ${f}`);
    sections.push({ text: listText(heading, lines), cut: 3, shrink: listOf(heading, lines) });
  }
  if (input.role === "rectify") sections.push(...rectifySections(input));
  if (input.role === "autofix") sections.push(...autofixSections(input));
  if ((input.role === "rectify" || input.role === "autofix") && input.reviewNotes?.length) {
    sections.push(reviewNotesSection(input.reviewNotes));
  }
  sections.push({ text: `${instructions(input.role, input.verdict?.gate)}\n${markerContract(input.role)}` });
  return fit(sections, input.maxChars ?? DEFAULT_MAX_PROMPT_CHARS);
}

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

function rectifySections(input: PromptInput): Section[] {
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
function verdictSection(verdict: PromptInput["verdict"]): Section | undefined {
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

function autofixSections(input: PromptInput): Section[] {
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

const RESUMED =
  "## Earlier work\n\nAn earlier run was stopped while working on this story. What it changed is already in the " +
  "working tree (see `git status` and `git diff`): continue from it rather than starting over.\n";

/** The panel's non-blocking findings, each with where it is and, for a lowered blocker, why it does not block. */
function reviewNotesSection(notes: DecidedFinding[]): Section {
  const heading =
    "## Review panel findings to fix\n\nReviewers raised these; none blocks the story on its own, but fix them too.\n\n";
  const lines = notes.map(
    (n) =>
      `- ${n.file}${n.line > 0 ? `:${n.line}` : ""}${n.ruleId ? ` [${n.ruleId}]` : ""} (${n.reviewer}): ${clip(n.text, FAILURE_MESSAGE)}${n.loweredBecause ? ` — raised as blocking, lowered: ${n.loweredBecause}` : ""}`,
  );
  return { text: listText(heading, lines), cut: 6, shrink: listOf(heading, lines) };
}

function instructions(role: AgentRole, gate?: FeedbackGate): string {
  const common = "Leave your changes uncommitted: gantry runs the checks on the working tree and commits.";
  if (role === "implement") {
    return `Implement this story in the repository, with tests that exercise it. Keep the existing tests passing.\n${common}\n`;
  }
  if (role === "rectify" && gate)
    return `Resolve what ${gate} found above, keeping the tests passing and the acceptance criteria met.\n${common}\n`;
  if (role === "rectify")
    return `Make the failing tests above pass, keeping the acceptance criteria met.\n${common}\n`;
  return `Fix the findings above; do not change what the code does.\n${common}\n`;
}

function dependencyLines(story: Story, given: DependencySummary[] | undefined): string[] {
  const byId = new Map((given ?? []).map((d) => [d.id, d]));
  const ids = [...new Set([...story.dependencies, ...byId.keys()])];
  return ids.map((id) => {
    const dep = byId.get(id);
    return dep ? `- ${dep.id} — ${dep.title} (${dep.status})` : `- ${id} (status unknown)`;
  });
}

const EXTENSIONS =
  "ts|tsx|js|jsx|mjs|cjs|mts|cts|json|jsonc|md|mdx|py|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|css|scss|less|html|vue|svelte|yml|yaml|toml|ini|sql|sh|bash|txt|xml|gradle|lock|proto|graphql";
const FILE_PATTERN = new RegExp(
  `(?<![\\w/.:-])((?:\\.{1,2}/)?(?:[\\w@.-]+/)*[\\w@-][\\w@.-]*\\.(?:${EXTENSIONS}))(?![\\w/-])`,
  "g",
);

/** Paths and file names the story's text mentions (`src/cart.ts`, `package.json`), each once, in order. */
export function filesNamed(story: Story): string[] {
  const text = [story.title, story.description, ...story.acceptanceCriteria].join("\n");
  const found = new Set<string>();
  for (const match of text.matchAll(FILE_PATTERN)) {
    const path = match[1];
    // "Node.js", "Vue.js": a capitalised bare name ending in .js is a library, not a file.
    if (path && !/^[A-Z][A-Za-z0-9]*\.js$/.test(path)) found.add(path.replace(/^(?:\.\/)+/, ""));
  }
  // One file named as `src/cart.ts` and as `cart.ts` is one file: the bare name goes.
  const paths = [...found];
  return paths.filter((p) => p.includes("/") || !paths.some((other) => other.endsWith(`/${p}`)));
}

/** What the readiness gate's research settled for this story (prd.json `readiness.findings`), one line each. */
function verifiedClarifications(story: Story): string[] {
  const findings = (story as { readiness?: { findings?: ReadinessFinding[] } }).readiness?.findings ?? [];
  return findings.map((f) => {
    const cited = f.citations.map((c) => `${c.path}:${c.line}`).join(", ");
    const criteria = f.criteria.length > 0 ? ` Proposed criteria: ${f.criteria.join("; ")}.` : "";
    return `- ${f.clarification.trim()}${criteria} (${cited})`;
  });
}

const clip = (text: string, max: number) => truncate(text, max + 4, " […]");

function roleHeading(role: AgentRole, gate?: FeedbackGate): string {
  if (role === "rectify" && gate) return `Fix what ${gate} found`;
  return role === "implement"
    ? "Implement"
    : role === "rectify"
      ? "Fix failing tests"
      : "Fix review findings";
}
