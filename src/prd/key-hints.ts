/**
 * Keys a PRD holds that gantry does not know but that look like a key it does (`dependsOn`,
 * `acceptance_criteria`): such a key is kept when gantry writes the file back, but its value is never read,
 * so a dependency or a criterion would be lost without a word. Each one found is a hint naming the place.
 */
import { formatPath } from "../config/input-error.js";
import { suggestKey } from "../util/suggest-key.js";
import { PrdSchema, RoutingSchema, StorySchema } from "./story.js";

export interface KeyHint {
  /** Where the key is, as `userStories[1].dependsOn`. */
  where: string;
  key: string;
  /** The known key it probably means, as a path from the same object (`routing.complexity` for a story). */
  suggestion: string;
}

const PRD_KEYS = Object.keys(PrdSchema.shape);
const STORY_KEYS = Object.keys(StorySchema.shape);
const ROUTING_KEYS = Object.keys(RoutingSchema.shape);

/** Other tools' and people's names for a key, by normalized spelling (lower case, letters and digits only). */
const PRD_ALIASES: Record<string, string> = {
  stories: "userStories",
  userstory: "userStories",
  tasks: "userStories",
  branch: "branchName",
  name: "feature",
};
const STORY_ALIASES: Record<string, string> = {
  dependson: "dependencies",
  depends: "dependencies",
  deps: "dependencies",
  dependency: "dependencies",
  requires: "dependencies",
  blockedby: "dependencies",
  after: "dependencies",
  prerequisites: "dependencies",
  acceptance: "acceptanceCriteria",
  criteria: "acceptanceCriteria",
  acceptancecriterion: "acceptanceCriteria",
  ac: "acceptanceCriteria",
  desc: "description",
  details: "description",
  name: "title",
  summary: "title",
  labels: "tags",
  label: "tags",
  state: "status",
  complexity: "routing.complexity",
  teststrategy: "routing.testStrategy",
};
const ROUTING_ALIASES: Record<string, string> = { difficulty: "complexity", strategy: "testStrategy" };

/** Every hint in a parsed-or-not PRD document; anything that is not an object is passed over. */
export function keyHints(raw: unknown): KeyHint[] {
  const hints: KeyHint[] = [];
  if (!isRecord(raw)) return hints;
  hints.push(...hintsIn(raw, [], PRD_KEYS, PRD_ALIASES));
  const stories = raw.userStories;
  if (!Array.isArray(stories)) return hints;
  stories.forEach((story, i) => {
    if (!isRecord(story)) return;
    hints.push(...hintsIn(story, ["userStories", i], STORY_KEYS, STORY_ALIASES));
    if (isRecord(story.routing))
      hints.push(...hintsIn(story.routing, ["userStories", i, "routing"], ROUTING_KEYS, ROUTING_ALIASES));
  });
  return hints;
}

function hintsIn(
  object: Record<string, unknown>,
  path: (string | number)[],
  known: readonly string[],
  aliases: Record<string, string>,
): KeyHint[] {
  const present = new Set(Object.keys(object));
  const hints: KeyHint[] = [];
  for (const key of Object.keys(object)) {
    if (known.includes(key)) continue;
    const suggestion = suggestKey(key, known, aliases, present);
    if (suggestion) hints.push({ where: formatPath([...path, key]), key, suggestion });
  }
  return hints;
}

/** The hint as one line: the file, the place, what is wrong and what it probably means. */
export function describeHint(file: string, hint: KeyHint): string {
  return `${file}: ${hint.where}: unknown key "${hint.key}"; did you mean "${hint.suggestion}"? (kept in the file, but gantry does not read it)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
