import type { Prd, Story } from "./story.js";
import { statusOf } from "./story.js";

/**
 * The stories a run works on, in dependency order (priority, then file order, among the ready ones).
 * Passed stories are never run again; `only` restricts to the named ids.
 */
export function selectStories(prd: Prd, only: string[] = []): Story[] {
  const wanted = (s: Story) => statusOf(s) !== "passed" && (only.length === 0 || only.includes(s.id));
  const byId = new Map(prd.userStories.map((s) => [s.id, s]));
  const order: Story[] = [];
  const placed = new Set<string>();
  const rank = (s: Story) => (typeof s.priority === "number" ? s.priority : Number.MAX_SAFE_INTEGER);
  const remaining = prd.userStories.filter(wanted);
  // Bounded: each round places at least one story or stops (cycles are rejected at load).
  for (let round = 0; remaining.length > 0 && round <= prd.userStories.length; round++) {
    const ready = remaining.filter((s) =>
      s.dependencies.every((d) => placed.has(d) || !wantedDep(byId.get(d), wanted)),
    );
    if (ready.length === 0) break;
    ready.sort((a, b) => rank(a) - rank(b));
    const next = ready[0] as Story;
    order.push(next);
    placed.add(next.id);
    remaining.splice(remaining.indexOf(next), 1);
  }
  return order;
}

/** A dependency outside the selection is satisfied only if it has passed; the executor checks that. */
function wantedDep(dep: Story | undefined, wanted: (s: Story) => boolean): boolean {
  return dep !== undefined && wanted(dep);
}
