import { canonicalJson } from "../util/canonical-json.js";
import { parsePrd, prdProblems } from "./load.js";
import { STATUS_FIELDS } from "./owned-prd.js";
import { isCheckable } from "./readiness.js";
import type { Prd } from "./story.js";

type Doc = Record<string, unknown> & { userStories?: Record<string, unknown>[] };

export interface PlanChange {
  id: string;
  change: "added" | "refined" | "unchanged" | "kept-passed";
  /** For `refined`: the fields that changed. */
  fields?: string[];
}

export type PlanMerge =
  | { ok: true; doc: Doc; prd: Prd; changes: PlanChange[] }
  | { ok: false; errors: string[] };

/** Fields only gantry writes: whatever an agent's answer says of them is dropped. */
const GANTRY_FIELDS: string[] = [...STATUS_FIELDS, "readiness"];

/**
 * Merges a plan agent's answer into the feature's PRD: a story that passed is never rewritten; other
 * stories with an answered id are refined (their status kept); new ids are added as pending; stories the
 * answer leaves out stay. The result is checked as `validate` checks a PRD (the same messages), and every
 * story still to run must have at least one acceptance criterion with an observable outcome. Every error is
 * returned at once, so one more answer can fix them all.
 */
export function mergePlan(
  existing: Doc | undefined,
  answer: unknown,
  feature: string,
  file: string,
): PlanMerge {
  const stories = answerStories(answer);
  if (!stories)
    return { ok: false, errors: [`${file}: expected {"userStories": [ … ]} with at least one story`] };
  const before = existing?.userStories ?? [];
  const byId = new Map(before.map((s) => [s.id, s]));
  const merged = before.map((s) => structuredClone(s));
  const changes: PlanChange[] = [];
  const seen = new Set<unknown>();
  for (const raw of stories) {
    const story = withoutGantryFields(raw);
    const old = byId.get(story.id);
    if (seen.has(story.id)) continue; // a duplicate id is reported by the PRD check below
    seen.add(story.id);
    if (!old) {
      merged.push({ ...story, status: "pending", passes: false });
      changes.push({ id: String(story.id), change: "added" });
      continue;
    }
    const index = merged.findIndex((s) => s.id === story.id);
    if (old.status === "passed" || (old.status === undefined && old.passes === true)) {
      changes.push({ id: String(story.id), change: "kept-passed" });
      continue;
    }
    const kept = Object.fromEntries(GANTRY_FIELDS.filter((f) => f in old).map((f) => [f, old[f]]));
    const next = { ...story, ...kept };
    const fields = [...new Set([...Object.keys(old), ...Object.keys(next)])].filter(
      (key) => canonicalJson(old[key]) !== canonicalJson(next[key]),
    );
    merged[index] = next;
    changes.push({
      id: String(story.id),
      ...(fields.length > 0 ? { change: "refined", fields } : { change: "unchanged" }),
    });
  }
  const doc: Doc = { ...(existing ?? { feature }), userStories: [...merged, ...duplicates(stories, seen)] };
  const errors = prdProblems(file, doc).map((problem) => problem.message);
  (doc.userStories ?? []).forEach((story, i) => {
    if (story.status === "passed" || (story.status === undefined && story.passes === true)) return;
    const criteria = Array.isArray(story.acceptanceCriteria) ? story.acceptanceCriteria : [];
    if (!criteria.some((c) => typeof c === "string" && isCheckable(c))) {
      errors.push(
        `${file}: userStories[${i}].acceptanceCriteria: ${String(story.id)} needs at least one criterion with an observable outcome (what a test sees: a value returned, an exit code, a message shown)`,
      );
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, doc, prd: parsePrd(file, doc), changes };
}

function answerStories(answer: unknown): Record<string, unknown>[] | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  const list = Array.isArray(answer) ? answer : (answer as Doc).userStories;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  return list.map((s) =>
    typeof s === "object" && s !== null && !Array.isArray(s) ? (s as Record<string, unknown>) : { id: s },
  );
}

function withoutGantryFields(story: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(story).filter(([key]) => !GANTRY_FIELDS.includes(key)));
}

/** Second and later stories with an id already answered, kept so the PRD check names the duplicate. */
function duplicates(stories: Record<string, unknown>[], seen: Set<unknown>): Record<string, unknown>[] {
  const counted = new Map<unknown, number>();
  const out: Record<string, unknown>[] = [];
  for (const s of stories) {
    const n = (counted.get(s.id) ?? 0) + 1;
    counted.set(s.id, n);
    if (n > 1 && seen.has(s.id)) out.push(withoutGantryFields(s));
  }
  return out;
}

/** One line per story the plan touched, for the user. */
export function describeChanges(changes: readonly PlanChange[]): string[] {
  return changes.map((c) =>
    c.change === "refined"
      ? `refined ${c.id} (${(c.fields ?? []).join(", ")})`
      : c.change === "kept-passed"
        ? `kept ${c.id} as it is (passed)`
        : `${c.change} ${c.id}`,
  );
}
