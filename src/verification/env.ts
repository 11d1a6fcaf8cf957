import { isStripped, stripSet } from "../util/secrets.js";

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
