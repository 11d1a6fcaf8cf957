import { canonicalJson } from "../util/canonical-json.js";

export type PrdDocument = Record<string, unknown> & { userStories?: Record<string, unknown>[] };

/** The fields of a story only gantry writes; a story someone adds during a run may not carry them. */
export const STATUS_FIELDS = ["status", "passes", "attempts", "failureReason", "costUsd"] as const;

export interface Restored {
  /** What prd.json must hold: gantry's copy, plus stories others added (without status fields). */
  doc: PrdDocument;
  /** One line per thing put back; empty when the file was gantry's copy already. */
  changes: string[];
}

/**
 * During a run prd.json is gantry's: it holds what the run loaded plus gantry's own writes (`owned`).
 * Against what the file holds now (`found`): a story removed or edited (status or any other field:
 * the run works from what it loaded) is put back, top-level fields too; a story added is kept, but
 * without status fields, which nobody but gantry sets.
 */
export function restoreOwned(owned: PrdDocument, found: unknown): Restored {
  const changes: string[] = [];
  const foundDoc = isRecord(found) ? found : {};
  const foundStories = Array.isArray(foundDoc.userStories) ? foundDoc.userStories.filter(isRecord) : [];
  const foundById = new Map<unknown, Record<string, unknown>>();
  for (const story of foundStories) if (!foundById.has(story.id)) foundById.set(story.id, story);
  const ownedStories = owned.userStories ?? [];
  const ownedIds = new Set(ownedStories.map((story) => story.id));

  for (const story of ownedStories) {
    const there = foundById.get(story.id);
    if (there === undefined) changes.push(`${story.id}: removed; restored`);
    else {
      const edited = differingFields(story, there);
      if (edited.length > 0) changes.push(`${story.id}: ${edited.join(", ")} edited; restored`);
    }
  }
  const topLevel = differingFields(withoutStories(owned), withoutStories(foundDoc));
  if (topLevel.length > 0) changes.push(`top-level ${topLevel.join(", ")} edited; restored`);

  const added: Record<string, unknown>[] = [];
  for (const story of foundStories) {
    if (ownedIds.has(story.id) || added.some((other) => other.id === story.id)) continue;
    const carried = STATUS_FIELDS.filter((field) => field in story);
    if (carried.length > 0) {
      changes.push(`${String(story.id)}: added with ${carried.join(", ")}; kept without them`);
    }
    added.push(Object.fromEntries(Object.entries(story).filter(([key]) => !carried.includes(key as never))));
  }
  const doc: PrdDocument = {
    ...structuredClone(owned),
    userStories: [...structuredClone(ownedStories), ...added],
  };
  if (canonicalJson(doc.userStories) !== canonicalJson(foundStories) && changes.length === 0) {
    // Same stories in another order, or a duplicate of one: gantry's list is put back.
    changes.push("stories reordered or duplicated; restored");
  }
  return { doc, changes };
}

function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((key) => canonicalJson(a[key]) !== canonicalJson(b[key]));
}

function withoutStories(doc: Record<string, unknown>): Record<string, unknown> {
  const { userStories: _stories, ...rest } = doc;
  return rest;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
