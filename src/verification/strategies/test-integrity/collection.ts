import { posix } from "node:path";

/** A runner the test commands name, and the file names it collects. */
const RUNNERS: { runs: RegExp; collects: (path: string) => boolean }[] = [
  // node --test collects JavaScript files only (a .ts file needs a loader the command would name).
  { runs: /(?:^|[\s;&|(/])node\b[^;&|]*\s--test\b/, collects: (path) => /\.[cm]?js$/.test(path) },
  {
    runs: /(?:^|[\s;&|(/])(?:pytest|py\.test)\b|\s-m\s+pytest\b/,
    collects: (path) => /^(?:test_.*|.*_test)\.py$/.test(posix.basename(path)),
  },
];

/**
 * Whether the runners the test commands name all collect `path`: false when one of them would not,
 * undefined when no runner it knows is named (the test conventions decide then).
 */
export function collectedBy(testCommands: readonly string[], path: string): boolean | undefined {
  const named = RUNNERS.filter((runner) => testCommands.some((command) => runner.runs.test(command)));
  if (named.length === 0) return undefined;
  return named.every((runner) => runner.collects(path));
}

/** A test file renamed so that the configured runner no longer collects it (`x.test.js` → `x.test.ts`). */
export function renamedOutOfCollection(testCommands: readonly string[], from: string, to: string): boolean {
  return collectedBy(testCommands, from) === true && collectedBy(testCommands, to) === false;
}
