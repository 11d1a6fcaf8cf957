import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { canonical, lineOf, parseObject, stringRecord } from "./config-text.js";
import type { ConfigFinding } from "./test-config-files.js";
import { readAt } from "./tree-diff.js";

/**
 * `quality.commands` of `.gantry/config.json` now (the file on disk, and HEAD's copy when the story moved
 * HEAD: neither is part of the judged tree) against the base commit's. A difference counts only when it
 * also differs from the config this run loaded at its start, so a user's own uncommitted edit made before
 * the run is not the story's doing. `only`: the command names compared (all when absent), so that the
 * test commands and the lint / type-check commands can be told apart.
 */
export async function qualityCommandsChange(input: {
  root: string;
  base: string | undefined;
  head?: string;
  loaded: unknown;
  only?: (key: string) => boolean;
}): Promise<ConfigFinding | undefined> {
  const { only } = input;
  const pick = (commands: unknown): unknown =>
    only && commands && typeof commands === "object"
      ? Object.fromEntries(Object.entries(commands).filter(([key]) => only(key)))
      : commands;
  const file = ".gantry/config.json";
  const path = join(input.root, file);
  // The base's copy is read only when a candidate differs from what the run loaded (one git show fewer a story).
  let base: unknown;
  const baseCommands = async () => {
    base ??= pick(commandsOf(input.base ? await readAt(input.root, input.base, file) : undefined));
    return base;
  };
  const candidates: { text: string | undefined; where: string }[] = [
    { text: existsSync(path) ? readFileSync(path, "utf8") : undefined, where: "" },
  ];
  if (input.head && input.head !== input.base) {
    candidates.push({
      text: await readAt(input.root, input.head, file),
      where: ` (committed at ${input.head.slice(0, 12)})`,
    });
  }
  for (const { text, where } of candidates) {
    const now = pick(commandsOf(text));
    if (same(now, pick(input.loaded ?? {})) || same(now, await baseCommands())) continue;
    if (now === INVALID)
      return { file, evidence: `${file}${where} is no longer valid JSON: quality.commands cannot be read` };
    const was = stringRecord(base);
    const is = stringRecord(now);
    const keys = [...new Set([...Object.keys(was), ...Object.keys(is)])]
      .sort()
      .filter((k) => was[k] !== is[k]);
    const parts = keys.map(
      (key) =>
        `quality.commands.${key}: ${JSON.stringify(was[key] ?? null)} → ${JSON.stringify(is[key] ?? null)}`,
    );
    const line = keys[0] ? lineOf(text ?? "", `"${keys[0]}"`, '"commands"') : undefined;
    return {
      file,
      ...(line ? { line } : {}),
      evidence: `${parts.join("; ") || "quality.commands changed"}${where}`,
    };
  }
  return undefined;
}

const INVALID = Symbol("invalid JSON");

function commandsOf(text: string | undefined): unknown {
  if (text === undefined) return {};
  const config = parseObject(text);
  if (!config) return INVALID;
  // A `quality` that is not an object (a string, a number) has no commands, as one that is absent.
  return (config.quality as { commands?: unknown } | null | undefined)?.commands ?? {};
}

/**
 * Equal configs. An unreadable one (INVALID, a symbol) is text "undefined" to `canonical`, which no read
 * config is (a config's commands are an object or `{}`): it equals only another unreadable one.
 */
function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
