import type { Rng } from "./harness.js";

/**
 * Seeded generators of malformed `.gantry/config.json` and `prd.json` texts. Every case is invalid by
 * construction (the kind says why), so gantry must refuse each one with an InputError.
 */

export interface Malformed {
  kind: string;
  text: string;
}

export const MB = 1024 * 1024;
export const huge = (c = "x") => c.repeat(MB);

/** Names and ids nobody should have to survive, but a file may hold. */
export const WEIRD = [
  "../../etc/passwd",
  "a\u0000b",
  "line\nbreak",
  "cr\rhere",
  "tab\there",
  "",
  " ",
  "x".repeat(81),
  "-lead",
  ".hidden",
  "a/b",
  "ü-umlaut",
  "emoji-😀",
  "$(rm -rf /)",
  "`id`",
  "constructor",
  "__proto__",
] as const;

export const weird = (rng: Rng) => (rng.chance(0.08) ? huge("k") : rng.pick(WEIRD));

/** Nested arrays `depth` deep, as text (JSON.stringify would overflow the stack past ~10,000). */
export const deepText = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
export const DEEP = "\u0000DEEP\u0000";

export function serialize(value: unknown, rng: Rng): string {
  const text = JSON.stringify(value);
  const marker = JSON.stringify(DEEP);
  return text.includes(marker) ? text.replace(marker, deepText(rng.pick([200, 5_000, 100_000]))) : text;
}

export const clone = <T>(value: T): T => structuredClone(value);

export function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== "object" || node[key] === null || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  // defineProperty: a key such as `__proto__` must become an own key that JSON.stringify writes.
  Object.defineProperty(node, path.at(-1) as string, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** A proper prefix of a JSON object's text is never valid JSON. */
export function truncated(text: string, rng: Rng): string {
  return text.slice(0, rng.int(0, text.length - 1));
}

/** A control character JSON allows neither in strings nor between tokens. */
export function withControlChar(text: string, rng: Rng): string {
  const bad = String.fromCharCode(rng.pick([0, 1, 2, 7, 8, 11, 12, 14, 27, 31]));
  const at = rng.int(1, text.length - 1);
  return text.slice(0, at) + bad + text.slice(at);
}

export const NON_OBJECT_ROOTS = ["null", "[]", "42", '"config"', "true", "[{}]", "-0", '""', "[[[[[]]]]]"];
