import { type Prd, type Story, statusOf } from "./story.js";

/** One shard of a feature's open stories: what `gantry run --shard i/K` runs on one CI runner. */
export interface Shard {
  /** 1-based. */
  index: number;
  total: number;
  /** `i/K`, as `--shard` takes it. */
  shard: string;
  /** In dependency order. */
  stories: string[];
  /** The summed story sizes the balance was made on. */
  size: number;
}

const SIZE: Record<string, number> = { simple: 1, medium: 2, complex: 3, expert: 5 };

/** A story's weight for balancing: its routing complexity when the PRD has one, else medium. */
export function storySize(story: Story): number {
  return SIZE[story.routing?.complexity ?? "medium"] ?? 2;
}

/**
 * The open (not passed) stories in `total` shards. Stories linked by `dependencies` (either way, through
 * any chain) stay on one shard, so no shard waits for another's work; the groups go largest first onto
 * the lightest shard (ties: the lower index). Deterministic: every runner computes the same plan from the
 * same prd.json, so each finds its own stories by its index alone.
 */
export function planShards(prd: Prd, total: number): Shard[] {
  const open = prd.userStories.filter((s) => statusOf(s) !== "passed");
  const ids = new Set(open.map((s) => s.id));
  const parent = new Map(open.map((s) => [s.id, s.id]));
  const find = (id: string): string => {
    let at = id;
    while (parent.get(at) !== at) at = parent.get(at) as string;
    return at;
  };
  for (const story of open)
    for (const dep of story.dependencies) if (ids.has(dep)) parent.set(find(dep), find(story.id));
  const groups = new Map<string, Story[]>();
  for (const story of open) {
    const root = find(story.id);
    groups.set(root, [...(groups.get(root) ?? []), story]);
  }
  const ordered = [...groups.values()]
    .map((stories) => ({ stories, size: stories.reduce((n, s) => n + storySize(s), 0) }))
    .sort((a, b) => b.size - a.size || firstIndex(prd, a.stories) - firstIndex(prd, b.stories));
  const shards: Shard[] = Array.from({ length: total }, (_, i) => ({
    index: i + 1,
    total,
    shard: `${i + 1}/${total}`,
    stories: [],
    size: 0,
  }));
  for (const group of ordered) {
    const lightest = shards.reduce((min, s) => (s.size < min.size ? s : min));
    lightest.stories.push(...group.stories.map((s) => s.id));
    lightest.size += group.size;
  }
  const position = new Map(prd.userStories.map((s, i) => [s.id, i]));
  for (const shard of shards) shard.stories.sort((a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0));
  return shards;
}

function firstIndex(prd: Prd, stories: Story[]): number {
  return Math.min(...stories.map((s) => prd.userStories.indexOf(s)));
}

/** `--shard i/K` read: 1 ≤ i ≤ K ≤ 256; undefined when the text is not that. */
export function parseShard(text: string): { index: number; total: number } | undefined {
  const match = /^(\d{1,3})\/(\d{1,3})$/.exec(text.trim());
  if (!match) return undefined;
  const index = Number(match[1]);
  const total = Number(match[2]);
  return index >= 1 && total >= 1 && total <= 256 && index <= total ? { index, total } : undefined;
}
