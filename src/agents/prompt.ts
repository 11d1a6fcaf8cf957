import type { AgentRole } from "../model/agent.js";
import type { ReadinessFinding } from "../model/readiness.js";
import type { DecidedFinding, ReviewCheck } from "../model/review.js";
import type { FeedbackGate, TestFailure } from "../model/verify.js";
import type { Story } from "../prd/story.js";
import { markerContract } from "./completion-marker.js";
import {
  autofixSections,
  type FeedbackVerdict,
  rectifySections,
  reviewNotesSection,
} from "./prompt-feedback.js";
import { fit, headOf, listOf, listText, type Section } from "./prompt-fit.js";

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
  verdict?: FeedbackVerdict;
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

const RESUMED =
  "## Earlier work\n\nAn earlier run was stopped while working on this story. What it changed is already in the " +
  "working tree (see `git status` and `git diff`): continue from it rather than starting over.\n";

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

function roleHeading(role: AgentRole, gate?: FeedbackGate): string {
  if (role === "rectify" && gate) return `Fix what ${gate} found`;
  return role === "implement"
    ? "Implement"
    : role === "rectify"
      ? "Fix failing tests"
      : "Fix review findings";
}
