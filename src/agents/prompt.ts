import type { AgentRole, ReviewCheck, TestFailure } from "../pipeline/events.js";
import type { Story } from "../prd/story.js";

export interface PromptInput {
  role: AgentRole;
  story: Story;
  feature: string;
  /** For rectify: the parsed failures, then a bounded tail of the raw output. */
  failures?: TestFailure[];
  rawOutputTail?: string;
  /** For autofix: the failing review checks. */
  findings?: ReviewCheck[];
  maxChars?: number;
}

const DEFAULT_MAX = 60_000;
const TAIL = 8_000;

/** The one place a story and a role become the text an agent is given. */
export function buildPrompt(input: PromptInput): string {
  const { story } = input;
  const parts: string[] = [];
  parts.push(`# ${roleHeading(input.role)}: ${story.id} — ${story.title}`, "");
  parts.push(`Feature: ${input.feature}`, "");
  if (story.description) parts.push("## Description", "", story.description, "");
  if (story.acceptanceCriteria.length > 0) {
    parts.push("## Acceptance criteria", "", ...story.acceptanceCriteria.map((c) => `- ${c}`), "");
  }
  if (input.role === "rectify") {
    parts.push(
      "## Failing tests",
      "",
      "The project's tests fail after your change. Fix the code (not the tests' intent).",
      "",
    );
    for (const f of input.failures ?? [])
      parts.push(`- ${f.file ? `${f.file}: ` : ""}${f.name}: ${f.message}`);
    if (input.rawOutputTail)
      parts.push("", "### Output (tail)", "", "```", input.rawOutputTail.slice(-TAIL), "```");
    parts.push("");
  }
  if (input.role === "autofix") {
    parts.push(
      "## Review findings",
      "",
      "Lint or typecheck fail. Fix every finding below without changing behaviour.",
      "",
    );
    for (const check of input.findings ?? []) {
      if (check.success) continue;
      parts.push(
        `### ${check.name} (exit code ${check.exitCode})`,
        "",
        ...check.findings.map((f) => `- ${f}`),
        "",
      );
      if (check.findings.length === 0) parts.push("```", check.output.slice(-TAIL), "```", "");
    }
  }
  if (input.role === "implement") {
    parts.push(
      "Implement this story in the repository, with tests that exercise it. Keep the existing tests passing.",
    );
  }
  const text = parts.join("\n");
  const max = input.maxChars ?? DEFAULT_MAX;
  return text.length <= max ? text : `${text.slice(0, max - 40)}\n\n[prompt cut at ${max} characters]\n`;
}

function roleHeading(role: AgentRole): string {
  return role === "implement"
    ? "Implement"
    : role === "rectify"
      ? "Fix failing tests"
      : "Fix review findings";
}
