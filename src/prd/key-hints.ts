/**
 * Keys a PRD holds that gantry does not know but that look like a key it does (`dependsOn`,
 * `acceptance_criteria`): such a key is kept when gantry writes the file back, but its value is never read,
 * so a dependency or a criterion would be lost without a word. Each one found is a hint naming the place.
 */
import { formatPath } from "../config/input-error.js";
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

const normalize = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, "");

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

/** The known key an unknown one is close to, or undefined; `present` are the keys the object has. */
export function suggestKey(
  key: string,
  known: readonly string[],
  aliases: Record<string, string>,
  present: ReadonlySet<string> = new Set(),
): string | undefined {
  const norm = normalize(key);
  if (norm === "") return undefined;
  const same = known.find((k) => normalize(k) === norm);
  if (same) return same;
  if (Object.hasOwn(aliases, norm)) return aliases[norm];
  // A near miss is a typo only when the key it is near is not there as well (`passed` beside `passes` is not).
  const limit = norm.length <= 4 ? 1 : 2;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    if (present.has(candidate)) continue;
    const distance = editDistance(norm, normalize(candidate));
    if (distance <= limit && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
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

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}

/** The hint as one line: the file, the place, what is wrong and what it probably means. */
export function describeHint(file: string, hint: KeyHint): string {
  return `${file}: ${hint.where}: unknown key "${hint.key}"; did you mean "${hint.suggestion}"? (kept in the file, but gantry does not read it)`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
