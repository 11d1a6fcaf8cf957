import type { RepoDigest } from "../git/repo-digest.js";
import { answerFileSection } from "./answer-file.js";
import { markerContract } from "./completion-marker.js";

export interface PlanPromptInput {
  feature: string;
  spec: string;
  digest: RepoDigest;
  /** The feature's stories so far, with their status; passed ones are not to be changed. */
  existing: { id: string; title: string; status: string }[];
  outputFile: string;
  /** The errors gantry found in the previous answer, when this is the second try. */
  errors?: string[];
}

/** The plan role's prompt: the spec and a digest of the repository in, stories as JSON in a file out. */
export function buildPlanPrompt(input: PlanPromptInput): string {
  const { digest } = input;
  const fence = (text: string) => `\`\`\`\n${text.trim()}\n\`\`\``;
  const parts = [
    `# Plan: feature ${input.feature}`,
    "",
    "Turn the spec below into user stories a coding agent can implement one at a time. Do not change the",
    "repository: the tree is read-only to you. Write nothing but the answer file.",
    "",
    "## Spec",
    "",
    input.spec.trim(),
    "",
    "## The repository",
    "",
    `Files (${digest.files.length}${digest.moreFiles > 0 ? `, ${digest.moreFiles} more not shown` : ""}):`,
    "",
    fence(digest.files.join("\n") || "(none)"),
    "",
    `Tests: ${digest.tests.length > 0 ? digest.tests.join(", ") : "(none found)"}`,
    "",
    ...digest.manifests.flatMap((m) => [`### ${m.path}`, "", fence(m.text), ""]),
  ];
  if (input.existing.length > 0) {
    parts.push(
      "## Stories so far",
      "",
      ...input.existing.map((s) => `- ${s.id} — ${s.title} (${s.status})`),
      "",
      "Stories that passed are kept as they are whatever you answer. Answer a story with an existing id to refine",
      "it, a new id to add one; stories you leave out stay.",
      "",
    );
  }
  parts.push(
    ...answerFileSection(input.outputFile, [
      '{ "userStories": [ { "id": "US-001", "title": "…", "description": "…",',
      '    "acceptanceCriteria": ["… an outcome a test can observe …"], "dependencies": [] } ] }',
    ]),
    "",
    "Rules: ids of letters, digits, '.', '_' or '-'; dependencies name ids of this feature and form no cycle;",
    "every story has at least one acceptance criterion with an observable outcome (a value returned, an exit",
    "code, a message shown); small stories, each one session of work.",
    "",
  );
  if (input.errors && input.errors.length > 0) {
    parts.push(
      "## Your previous answer was not accepted",
      "",
      ...input.errors.map((e) => `- ${e}`),
      "",
      "Write a corrected answer to the same file.",
      "",
    );
  }
  parts.push(markerContract("plan"));
  return parts.join("\n");
}
