/**
 * The environment a test or check command runs in: the caller's, minus credentials. A variable goes when
 * it is named in `stripNames` (any case) or when its name looks like a secret: ending in `_KEY`, `_TOKEN`
 * or `_SECRET`, or containing `PASSWORD`, in any case. Nothing is added.
 */
export function testEnvironment(base: NodeJS.ProcessEnv, stripNames: string[]): NodeJS.ProcessEnv {
  const strip = stripSet(stripNames);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isStripped(name, strip)) env[name] = value;
  }
  return env;
}

/**
 * Added to every judging command's environment: Python writes no bytecode, and reads none from the tree's
 * `__pycache__` (the prefix is a folder that can never exist), so a planted `.pyc` is never the code tested.
 */
export const NO_BYTECODE = {
  PYTHONDONTWRITEBYTECODE: "1",
  PYTHONPYCACHEPREFIX: "/dev/null/pycache",
} as const;

/**
 * The values of the variables `testEnvironment` strips, for redacting them from output: non-empty, at
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

function stripSet(stripNames: string[]): Set<string> {
  return new Set(stripNames.map((name) => name.toUpperCase()));
}

function isStripped(name: string, strip: Set<string>): boolean {
  const upper = name.toUpperCase();
  return (
    strip.has(upper) || upper.includes("PASSWORD") || SECRET_SUFFIXES.some((suffix) => upper.endsWith(suffix))
  );
}
