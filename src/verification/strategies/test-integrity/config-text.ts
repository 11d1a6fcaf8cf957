import { truncate } from "../../../util/text.js";
/** Small text helpers the test-config checks share: JSON, INI / TOML sections, a JS object block, line numbers. */

/** A change to what defines or configures the test, lint or type-check command, with where it shows. */
export interface ConfigFinding {
  file: string;
  line?: number;
  evidence: string;
}

export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== "object") return {};
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => [
      key,
      typeof v === "string" ? v : JSON.stringify(v),
    ]),
  );
}

/** JSON with object keys sorted, so key order is not a change. */
export function canonical(value: unknown): string {
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

/**
 * Where the `wanted` sections of a file's two texts (undefined: absent) first differ, with the line in the
 * new text when it has the section; undefined when the sections are the same.
 */
export function sectionChange(
  before: string | undefined,
  after: string | undefined,
  wanted: (name: string) => boolean,
) {
  const was = sectionOf(before ?? "", wanted);
  const now = sectionOf(after ?? "", wanted);
  if (was.text === now.text) return undefined;
  const at = firstDifference(was.lines, now.lines);
  return { was, now, at, line: now.start > 0 ? now.start + at.index : undefined };
}

/** The lines of the sections whose header satisfies `wanted` (INI / TOML), header lines included. */
export function sectionOf(
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
export function testBlock(text: string): { text: string; line?: number } {
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

export function firstDifference(was: string[], now: string[]): { index: number; line: number; text: string } {
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
export function lineOf(text: string, needle: string, after?: string): number | undefined {
  const from = after ? text.indexOf(after) : 0;
  const at = text.indexOf(needle, Math.max(from, 0));
  return at < 0 ? undefined : text.slice(0, at).split("\n").length;
}

export function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

export const clip = (text: string) => truncate(text, 160, "...");
