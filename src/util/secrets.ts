/**
 * Which environment variables hold credentials: named in a `stripNames` list (any case), or named like a
 * secret (ending in `_KEY`, `_TOKEN`, `_SECRET`, or containing `PASSWORD`, any case).
 */

/**
 * The values of the variables `testEnvironment` (verification/env.ts) strips, for redacting them from output: non-empty, at
 * least 4 characters (shorter ones would redact ordinary text), each once, longest first so a secret that
 * contains another is replaced whole.
 */
export function secretValues(base: NodeJS.ProcessEnv, stripNames: string[]): string[] {
  const strip = stripSet(stripNames);
  const values = new Set<string>();
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && isStripped(name, strip))
      values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0));
}

const MIN_SECRET_LENGTH = 4;
const SECRET_SUFFIXES = ["_KEY", "_TOKEN", "_SECRET"];

export function stripSet(stripNames: string[]): Set<string> {
  return new Set(stripNames.map((name) => name.toUpperCase()));
}

export function isStripped(name: string, strip: Set<string>): boolean {
  const upper = name.toUpperCase();
  return (
    strip.has(upper) || upper.includes("PASSWORD") || SECRET_SUFFIXES.some((suffix) => upper.endsWith(suffix))
  );
}
