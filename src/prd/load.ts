import { formatPath, fromZodIssue, InputError, parseJsonText, readInputFile } from "../config/input-error.js";
import { type Prd, PrdSchema } from "./story.js";

export function prdPath(root: string, feature: string): string {
  return `${root}/.gantry/features/${feature}/prd.json`;
}

/**
 * How deeply a PRD may nest arrays and objects. Fields gantry does not know are kept and written back, and
 * JSON.stringify overflows the stack somewhere past a few thousand levels: such a file would load and then
 * fail at the run's first status write. Real PRDs nest four or five levels.
 */
export const MAX_PRD_DEPTH = 64;

/** Parses and checks a PRD: nesting, schema, unique ids, dependencies that exist, no cycles. */
export function parsePrd(file: string, raw: unknown): Prd {
  const { prd, problems } = checkPrd(file, raw);
  if (problems[0] || !prd) throw problems[0] ?? new InputError(file, "", "invalid PRD", "GANTRY_E_PRD");
  return prd;
}

/**
 * Every problem of a PRD at once, in the order parsePrd reports the first: nesting, the schema's issues, then
 * duplicate ids and dependencies on no story (read from the raw stories when the schema failed, so an answer
 * with several kinds of mistakes hears of all of them), then a cycle (only when nothing else is wrong).
 */
export function prdProblems(file: string, raw: unknown): InputError[] {
  return checkPrd(file, raw).problems;
}

function checkPrd(file: string, raw: unknown): { prd?: Prd; problems: InputError[] } {
  const tooDeep = pathDeeperThan(raw, MAX_PRD_DEPTH);
  if (tooDeep !== undefined) {
    return {
      problems: [
        new InputError(
          file,
          formatPath(tooDeep),
          `nested more than ${MAX_PRD_DEPTH} levels deep`,
          "GANTRY_E_PRD",
        ),
      ],
    };
  }
  const parsed = PrdSchema.safeParse(raw);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((issue) => fromZodIssue(file, issue, "GANTRY_E_PRD"));
  const links = parsed.success ? parsed.data.userStories : rawLinks(raw);
  const index = new Map<string, number>();
  links.forEach((story, i) => {
    if (story === undefined) return;
    const first = index.get(story.id);
    if (first === undefined) index.set(story.id, i);
    else
      problems.push(
        new InputError(
          file,
          `userStories[${i}].id`,
          `duplicate story id "${story.id}" (first at userStories[${first}])`,
          "GANTRY_E_PRD",
        ),
      );
  });
  links.forEach((story, i) => {
    story?.dependencies.forEach((dep, j) => {
      const where = `userStories[${i}].dependencies[${j}]`;
      if (!index.has(dep))
        problems.push(
          new InputError(
            file,
            where,
            `depends on "${dep}", which is not a story in this PRD`,
            "GANTRY_E_PRD",
          ),
        );
      else if (dep === story.id)
        problems.push(new InputError(file, where, "a story cannot depend on itself", "GANTRY_E_PRD"));
    });
  });
  if (problems.length > 0 || !parsed.success) return { problems };
  const cycle = findCycle(parsed.data);
  if (!cycle) return { prd: parsed.data, problems: [] };
  const at = index.get(cycle[0] as string) ?? 0;
  const where = `userStories[${at}].dependencies`;
  return {
    problems: [new InputError(file, where, `dependency cycle: ${cycle.join(" -> ")}`, "GANTRY_E_PRD")],
  };
}

/** The ids and dependencies of the raw stories that have them as strings (undefined for the others). */
function rawLinks(raw: unknown): ({ id: string; dependencies: string[] } | undefined)[] {
  const stories = (raw as { userStories?: unknown } | null)?.userStories;
  if (!Array.isArray(stories)) return [];
  return stories.map((story) => {
    const { id, dependencies } = (story ?? {}) as { id?: unknown; dependencies?: unknown };
    if (typeof id !== "string") return undefined;
    const deps = Array.isArray(dependencies) ? dependencies.filter((d) => typeof d === "string") : [];
    return { id, dependencies: deps };
  });
}

/** The path of the first value nested deeper than `max`, found without recursion; undefined when none is. */
function pathDeeperThan(root: unknown, max: number): (string | number)[] | undefined {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: (string | number)[] };
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= max) return path;
    const children: [string | number, unknown][] = Array.isArray(value)
      ? [...value.entries()]
      : Object.entries(value);
    for (const [key, item] of children) stack.push({ value: item, path: [...path, key] });
  }
  return undefined;
}

function findCycle(prd: Prd): string[] | undefined {
  const deps = new Map(prd.userStories.map((s) => [s.id, s.dependencies]));
  const state = new Map<string, "visiting" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === "done") return undefined;
    if (state.get(id) === "visiting") return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, "visiting");
    stack.push(id);
    for (const dep of deps.get(id) ?? []) {
      const found = visit(dep);
      if (found) return found;
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of deps.keys()) {
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}

export function readPrdRaw(path: string, display = path): unknown {
  const text = readInputFile(path, display, "no such file; expected the feature's prd.json");
  return parseJsonText(display, text);
}

export function loadPrd(path: string, display = path): Prd {
  return parsePrd(display, readPrdRaw(path, display));
}
