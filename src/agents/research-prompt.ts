import type { ReadinessGap } from "../model/readiness.js";
import type { Story } from "../prd/story.js";
import { markerContract } from "./completion-marker.js";

export interface ResearchPromptInput {
  story: Story;
  feature: string;
  /** The blockers the research is to clarify. */
  gaps: readonly ReadinessGap[];
  outputFile: string;
}

/** The research role's prompt: read the repository, propose clarifications that cite it, write nothing else. */
export function buildResearchPrompt(input: ResearchPromptInput): string {
  const { story } = input;
  const criteria = story.acceptanceCriteria.map((c) => `- ${c}`).join("\n") || "(none)";
  const gaps = input.gaps.map((g) => `- \`${g.code}\`: ${g.detail}`).join("\n");
  return [
    `# Research: ${story.id} — ${story.title}`,
    "",
    `Feature: ${input.feature}`,
    "",
    "## The story as written",
    "",
    story.description.trim() || "(no description)",
    "",
    "Acceptance criteria:",
    "",
    criteria,
    "",
    "## What keeps it from being ready",
    "",
    gaps,
    "",
    "## Your task",
    "",
    "Read the repository (do not change it: the tree is read-only) and find what it already says that settles",
    "these gaps. For each gap you can settle, write a finding. Every finding cites the repository: the file's",
    "path relative to the project root, the 1-based line number, and text quoted verbatim from that line",
    "(at least 12 characters). gantry checks every citation; a finding with one citation it cannot find is",
    "dropped. Propose acceptance criteria only as the cited text supports them.",
    "",
    `Write your answer as JSON to ${input.outputFile}:`,
    "",
    "```json",
    '{ "findings": [ { "gap": "no-acceptance-criteria", "clarification": "…",',
    '    "criteria": ["…"], "citations": [ { "path": "docs/spec.md", "line": 12, "quote": "…" } ] } ] }',
    "```",
    "",
    markerContract("research"),
  ].join("\n");
}
