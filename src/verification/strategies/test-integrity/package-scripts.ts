import { type ConfigFinding, lineOf } from "./config-text.js";

/**
 * The package.json scripts some commands reach: every script whose name `own` matches, each script a
 * command names through npm / pnpm / yarn / bun (`npm test`, `npm run test:unit`), and the scripts those
 * name in turn, in any of `scriptSets` (the base's and the judged tree's scripts).
 */
export function reachedScripts(
  commands: readonly string[],
  own: RegExp,
  scriptSets: readonly Record<string, string>[],
): string[] {
  const names = new Set<string>();
  const queue = [...commands];
  for (const scripts of scriptSets) {
    for (const [name, body] of Object.entries(scripts)) {
      if (!own.test(name)) continue;
      names.add(name);
      queue.push(body);
    }
  }
  for (let i = 0; i < queue.length && i < 1000; i++) {
    for (const name of invokedScripts(queue[i] ?? "")) {
      if (names.has(name)) continue;
      names.add(name);
      for (const scripts of scriptSets) if (scripts[name] !== undefined) queue.push(scripts[name]);
    }
  }
  return [...names].sort();
}

function invokedScripts(command: string): string[] {
  const names: string[] = [];
  for (const match of command.matchAll(
    /\b(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?([A-Za-z0-9:._-]+)/g,
  )) {
    const name = match[1] ?? "";
    names.push(name === "t" || name === "tst" ? "test" : name);
  }
  return names;
}

/** One finding per script of `names` whose body differs between `was` and `now`; lines are in `after`. */
export function scriptChanges(
  path: string,
  names: readonly string[],
  was: Record<string, string>,
  now: Record<string, string>,
  after: string | undefined,
): ConfigFinding[] {
  const findings: ConfigFinding[] = [];
  for (const name of names) {
    const from = was[name];
    const to = now[name];
    if (from === to) continue;
    const what =
      from === undefined
        ? `added as ${JSON.stringify(to)}`
        : to === undefined
          ? `removed (was ${JSON.stringify(from)})`
          : `${JSON.stringify(from)} → ${JSON.stringify(to)}`;
    const line = lineOf(after ?? "", `"${name}"`, '"scripts"');
    findings.push({ file: path, ...(line ? { line } : {}), evidence: `scripts.${name}: ${what}` });
  }
  return findings;
}
