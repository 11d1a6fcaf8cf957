import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { readAt, type TreeChange } from "./tree-diff.js";

/** A change to what defines or configures the test command, with where it shows. */
export interface ConfigFinding {
  file: string;
  line?: number;
  evidence: string;
}

/** Files that configure a test runner as a whole: any change to one is a finding. */
const WHOLE_FILES = [
  /^pytest\.ini$/,
  /^conftest\.py$/,
  /^(?:vitest|jest)\.(?:config|workspace|setup)\.[cm]?[jt]sx?$/,
  /^jest\.config\.json$/,
  /^vitest\.workspace\.json$/,
  /^\.mocharc(?:\.(?:js|cjs|mjs|json|jsonc|yml|yaml))?$/,
];
/** Files where only one section configures the tests: the section's header, as a predicate on its name. */
const SECTION_FILES: Record<string, (section: string) => boolean> = {
  "pyproject.toml": (name) => name === "tool.pytest" || name.startsWith("tool.pytest."),
  "setup.cfg": (name) => name === "tool:pytest",
  "tox.ini": (name) => name === "pytest",
};
const VITE_CONFIG = /^vite\.config\.[cm]?[jt]s$/;
/** package.json keys that configure a runner whole. */
const PACKAGE_RUNNER_KEYS = ["jest", "mocha"];
/** npm script names that are about tests whatever the configured commands say. */
const TEST_SCRIPT = /^(?:pre|post)?test(?:$|[:._-])/;

/** Whether a path is one of the test configuration files this module judges. */
export function isTestConfigFile(path: string): boolean {
  const base = posix.basename(path);
  return (
    WHOLE_FILES.some((pattern) => pattern.test(base)) ||
    base in SECTION_FILES ||
    VITE_CONFIG.test(base) ||
    base === "package.json"
  );
}

/**
 * Changes from base to the judged tree that alter what the test command runs or how: runner config
 * files, the pytest sections of shared files, a vite config's `test` block, and in package.json the
 * scripts the configured test commands invoke (and every `test*` script) and the jest / mocha keys.
 */
export async function testConfigChanges(input: {
  root: string;
  base: string;
  tree: string;
  changes: readonly TreeChange[];
  testCommands: readonly string[];
}): Promise<ConfigFinding[]> {
  const findings: ConfigFinding[] = [];
  for (const change of input.changes) {
    const path = change.status === "D" ? change.from : change.path;
    if (!isTestConfigFile(path) && !isTestConfigFile(change.from)) continue;
    const before = change.status === "A" ? undefined : await readAt(input.root, input.base, change.from);
    const after = change.status === "D" ? undefined : await readAt(input.root, input.tree, change.path);
    findings.push(...compareConfig(path, before, after, input.testCommands));
  }
  return findings;
}

/** One config file's base and current text (undefined: absent) compared; exported for unit tests. */
export function compareConfig(
  path: string,
  before: string | undefined,
  after: string | undefined,
  testCommands: readonly string[],
): ConfigFinding[] {
  if (before === after) return [];
  const base = posix.basename(path);
  if (WHOLE_FILES.some((pattern) => pattern.test(base))) {
    if (after === undefined) return [{ file: path, evidence: `${base} deleted: it configures the tests` }];
    if (before === undefined) return [{ file: path, evidence: `${base} added: it configures the tests` }];
    const at = firstDifference(before.split("\n"), after.split("\n"));
    return [{ file: path, line: at.line, evidence: `${base} changed at line ${at.line}: ${at.text}` }];
  }
  const section = SECTION_FILES[base];
  if (section) {
    const was = sectionOf(before ?? "", section);
    const now = sectionOf(after ?? "", section);
    if (was.text === now.text) return [];
    const at = firstDifference(was.lines, now.lines);
    const line = now.start > 0 ? now.start + at.index : undefined;
    const what = now.header ?? was.header ?? "the pytest section";
    return [{ file: path, ...(line ? { line } : {}), evidence: `${what} changed: ${at.text}` }];
  }
  if (VITE_CONFIG.test(base)) {
    const was = testBlock(before ?? "");
    const now = testBlock(after ?? "");
    if (normalize(was.text) === normalize(now.text)) return [];
    return [
      {
        file: path,
        ...(now.line ? { line: now.line } : {}),
        evidence: `the test block of ${base} changed: ${clip(normalize(now.text) || "(removed)")}`,
      },
    ];
  }
  if (base === "package.json") return comparePackage(path, before, after, testCommands);
  return [];
}

function comparePackage(
  path: string,
  before: string | undefined,
  after: string | undefined,
  testCommands: readonly string[],
): ConfigFinding[] {
  const was = parseObject(before ?? "{}");
  const now = parseObject(after ?? "{}");
  if (!now)
    return [
      { file: path, evidence: "package.json is no longer valid JSON: the test scripts cannot be read" },
    ];
  if (!was) return [];
  const findings: ConfigFinding[] = [];
  const wasScripts = stringRecord(was.scripts);
  const nowScripts = stringRecord(now.scripts);
  for (const name of testScripts(testCommands, wasScripts, nowScripts)) {
    const from = wasScripts[name];
    const to = nowScripts[name];
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
  for (const key of PACKAGE_RUNNER_KEYS) {
    if (canonical(was[key]) === canonical(now[key])) continue;
    const line = lineOf(after ?? "", `"${key}"`);
    findings.push({ file: path, ...(line ? { line } : {}), evidence: `the "${key}" runner config changed` });
  }
  return findings;
}

/**
 * The scripts the test commands reach: every `test*` script, each script a test command names through
 * npm / pnpm / yarn / bun (`npm test`, `npm run test:unit`), and the scripts those name in turn.
 */
export function testScripts(
  testCommands: readonly string[],
  ...scriptSets: Record<string, string>[]
): string[] {
  const names = new Set<string>();
  const queue = [...testCommands];
  for (const scripts of scriptSets) {
    for (const [name, body] of Object.entries(scripts)) {
      if (!TEST_SCRIPT.test(name)) continue;
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

/**
 * `quality.commands` of `.gantry/config.json` now (the file on disk, and HEAD's copy when the story moved
 * HEAD: neither is part of the judged tree) against the base commit's. A difference counts only when it
 * also differs from the config this run loaded at its start, so a user's own uncommitted edit made before
 * the run is not the story's doing.
 */
export async function qualityCommandsChange(input: {
  root: string;
  base: string | undefined;
  head?: string;
  loaded: unknown;
}): Promise<ConfigFinding | undefined> {
  const file = ".gantry/config.json";
  const path = join(input.root, file);
  const baseText = input.base ? await readAt(input.root, input.base, file) : undefined;
  const base = commandsOf(baseText);
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
    const now = commandsOf(text);
    if (canonical(now) === canonical(base) || canonical(now) === canonical(input.loaded ?? {})) continue;
    if (now === INVALID)
      return { file, evidence: `${file}${where} is no longer valid JSON: quality.commands cannot be read` };
    const was = base === INVALID ? {} : stringRecord(base);
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
  const quality = config.quality as Record<string, unknown> | undefined;
  return (quality && typeof quality === "object" ? quality.commands : undefined) ?? {};
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => [
      key,
      typeof v === "string" ? v : JSON.stringify(v),
    ]),
  );
}

/** JSON with object keys sorted, so key order is not a change. */
function canonical(value: unknown): string {
  if (value === INVALID) return "<invalid>";
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
          )
        : v,
    ) ?? "undefined"
  );
}

/** The lines of the sections whose header satisfies `wanted` (INI / TOML), header lines included. */
function sectionOf(
  text: string,
  wanted: (name: string) => boolean,
): { text: string; lines: string[]; start: number; header?: string } {
  const lines: string[] = [];
  let start = 0;
  let header: string | undefined;
  let inside = false;
  text.split("\n").forEach((raw, index) => {
    const match = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:[#;].*)?$/.exec(raw);
    if (match) {
      inside = wanted((match[1] ?? "").replaceAll('"', ""));
      if (inside && start === 0) {
        start = index + 1;
        header = raw.trim();
      }
    }
    if (inside) lines.push(raw.trimEnd());
  });
  return { text: lines.join("\n"), lines, start, ...(header ? { header } : {}) };
}

/** The `test: { … }` object of a vite config, by brace matching outside strings; empty when there is none. */
function testBlock(text: string): { text: string; line?: number } {
  const found = /\btest\s*:\s*\{/.exec(text);
  if (!found) return { text: "" };
  const open = found.index + found[0].length - 1;
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) {
      return { text: text.slice(found.index, i + 1), line: text.slice(0, found.index).split("\n").length };
    }
  }
  return { text: text.slice(found.index), line: text.slice(0, found.index).split("\n").length };
}

function firstDifference(was: string[], now: string[]): { index: number; line: number; text: string } {
  const length = Math.max(was.length, now.length);
  for (let i = 0; i < length; i++) {
    if ((was[i] ?? "").trimEnd() !== (now[i] ?? "").trimEnd()) {
      const text =
        now[i] !== undefined ? clip(now[i]?.trim() ?? "") : `(removed: ${clip(was[i]?.trim() ?? "")})`;
      return { index: i, line: i + 1, text };
    }
  }
  return { index: 0, line: 1, text: "(whitespace)" };
}

/** 1-based line of the first `needle` after `after` (when given) in `text`. */
function lineOf(text: string, needle: string, after?: string): number | undefined {
  const from = after ? text.indexOf(after) : 0;
  const at = text.indexOf(needle, Math.max(from, 0));
  return at < 0 ? undefined : text.slice(0, at).split("\n").length;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
