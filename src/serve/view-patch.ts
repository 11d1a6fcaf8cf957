import type { RunView } from "./view-types.js";

/**
 * A run's view as the streams were last sent it, each part already JSON: the top-level fields in the
 * view's own order, each story apart, and the log's lines. The whole view's JSON and the patch from one
 * version to the next are both put together from these strings, so a change is serialized once.
 */
export interface ViewParts {
  runId: string;
  version: number;
  live: boolean;
  status: string;
  /** Top-level fields other than stories and log, in order: [name, JSON]. */
  fields: [string, string][];
  stories: string[];
  log: string[];
  /** The log's JSON, when the caller has it already. */
  logJson?: string;
  /** Where stories and log sit among the fields (JSON.stringify's order). */
  order: string[];
}

/**
 * `storiesJson`, `logJson`: the stories' and the log's JSON when the caller has them already (each story's
 * JSON kept until it changes, each log line's made once).
 */
export function viewParts(
  view: RunView,
  version: number,
  storiesJson?: string[],
  logJson?: string,
): ViewParts {
  const fields: [string, string][] = [];
  const order: string[] = [];
  for (const [name, value] of Object.entries(view)) {
    if (value === undefined) continue;
    order.push(name);
    if (name !== "stories" && name !== "log") fields.push([name, JSON.stringify(value)]);
  }
  return {
    runId: view.runId,
    version,
    live: view.live,
    status: view.status,
    fields,
    stories: storiesJson ?? view.stories.map((story) => JSON.stringify(story)),
    log: view.log,
    ...(logJson === undefined ? {} : { logJson }),
    order,
  };
}

/** The whole view as JSON (what JSON.stringify(view) gives), with its version last. */
export function viewJson(parts: ViewParts): string {
  const byName = new Map(parts.fields);
  const members = parts.order.map((name) => {
    if (name === "stories") return `"stories":[${parts.stories.join(",")}]`;
    if (name === "log") return `"log":${parts.logJson ?? JSON.stringify(parts.log)}`;
    return `${JSON.stringify(name)}:${byName.get(name)}`;
  });
  members.push(`"version":${parts.version}`);
  return `{${members.join(",")}}`;
}

/**
 * What changed from `before` to `after` (the same run), as the JSON of a patch for applyViewPatch: the
 * fields that changed or went, the stories that changed (by index) and the new count, and the log as lines
 * dropped from its start and lines added at its end. `runId`, `live` and `status` are always there: a page
 * that does not hold this run decides from them whether to fetch it.
 */
export function viewPatch(before: ViewParts, after: ViewParts): string {
  const old = new Map(before.fields);
  const set: string[] = [];
  for (const [name, json] of after.fields) {
    if (old.get(name) !== json) set.push(`${JSON.stringify(name)}:${json}`);
  }
  const present = new Set(after.order);
  const unset = before.order.filter((name) => !present.has(name));
  const stories: string[] = [];
  after.stories.forEach((json, i) => {
    if (before.stories[i] !== json) stories.push(`"${i}":${json}`);
  });
  const drop = logShift(before.log, after.log);
  const add = after.log.slice(before.log.length - drop);
  return (
    `{"runId":${JSON.stringify(after.runId)},"from":${before.version},"to":${after.version},` +
    `"live":${after.live},"status":${JSON.stringify(after.status)},"set":{${set.join(",")}},` +
    `"unset":${JSON.stringify(unset)},"storyCount":${after.stories.length},"stories":{${stories.join(",")}},` +
    `"logDrop":${drop},"logAdd":${JSON.stringify(add)}}`
  );
}

/**
 * The fewest lines to drop from the start of `before` so that what is left starts `after` (the log is a
 * bounded tail: lines leave at the start and arrive at the end). All of them when nothing lines up.
 */
function logShift(before: string[], after: string[]): number {
  for (let drop = 0; drop < before.length; drop++) {
    const kept = before.length - drop;
    if (kept > after.length) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = before[drop + i] === after[i];
    if (same) return drop;
  }
  return before.length;
}

export interface ViewPatch {
  runId: string;
  from: number;
  to: number;
  live: boolean;
  status: string;
  set: Record<string, unknown>;
  unset: string[];
  storyCount: number;
  stories: Record<string, unknown>;
  logDrop: number;
  logAdd: string[];
}

/**
 * Applies a patch to the view it was made from (`view.version === patch.from`), in place. The page runs
 * this same function (its source is put into the page's script): no inner functions, plain JavaScript once
 * the types are gone.
 */
export function applyViewPatch(view: Record<string, unknown>, patch: ViewPatch): void {
  for (const name of Object.keys(patch.set)) view[name] = patch.set[name];
  for (const name of patch.unset) delete view[name];
  const stories = view.stories as unknown[];
  stories.length = patch.storyCount;
  for (const index of Object.keys(patch.stories)) stories[Number(index)] = patch.stories[index];
  view.log = (view.log as string[]).slice(patch.logDrop).concat(patch.logAdd);
  view.version = patch.to;
}
