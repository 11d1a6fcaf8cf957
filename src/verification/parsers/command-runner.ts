/**
 * Which test runner a configured command calls, read from the command itself: `node --test`,
 * `npx vitest run`, `jest`, `mocha`, `pytest` / `python -m pytest`, `go test`, `cargo test`. The
 * runner named here decides how the output is read, so text printed by the code under test cannot
 * pass for another runner's summary. A command that names none (`npm test`) or several gives none.
 */

/** Words that run the next word as the program: `npx vitest`, `pnpm exec jest`, `env X=1 mocha`. */
const WRAPPERS = new Set(["npx", "bunx", "env", "cross-env", "time", "nice", "exec"]);
/** Package managers' subcommands that run the next word as a program (`npm run x` runs a script). */
const MANAGERS = new Map<string, readonly string[]>([
  ["npm", ["exec", "x"]],
  ["pnpm", ["exec", "dlx"]],
  ["yarn", ["exec", "dlx"]],
  ["bun", ["x"]],
  ["uv", ["run"]],
  ["poetry", ["run"]],
  ["pipenv", ["run"]],
]);

/** A word as the shell passes it: quoted parts joined with the rest (`'vitest'`, `py"test"`, `je''st`). */
function unquote(word: string): string {
  return word.replace(/'([^']*)'|"([^"]*)"/g, "$1$2");
}

/** `./node_modules/.bin/jest` → `jest`, `jest.cmd` → `jest`, `python3.11` → `python3.11`. */
function program(word: string): string {
  return (unquote(word).split(/[\\/]/).pop() ?? "").replace(/\.(?:cmd|exe|js|mjs|cjs)$/, "");
}

/** The runner one simple command (no `&&`, `;`, `|`) calls, if any. */
export function segmentRunner(words: readonly string[]): string | undefined {
  let i = 0;
  const skipAssignments = (): void => {
    while (i < words.length && /^\w+=/.test(words[i] as string)) i++;
  };
  skipAssignments();
  for (;;) {
    const name = program(words[i] ?? "");
    if (WRAPPERS.has(name)) {
      i++;
      while (i < words.length && (words[i] as string).startsWith("-")) i++;
      skipAssignments();
      continue;
    }
    if (MANAGERS.get(name)?.includes(unquote(words[i + 1] ?? ""))) {
      i += 2;
      while (i < words.length && (words[i] as string).startsWith("-")) i++;
      continue;
    }
    break;
  }
  const name = program(words[i] ?? "");
  const rest = words.slice(i + 1).map(unquote);
  if (name === "vitest") return "vitest";
  if (name === "jest") return "jest";
  if (name === "mocha" || name === "_mocha") return "mocha";
  if (name === "pytest" || name === "py.test") return "pytest";
  if (/^python(?:\d+(?:\.\d+)?)?$/.test(name) && rest[0] === "-m" && rest[1] === "pytest") return "pytest";
  if (name === "go" && rest[0] === "test") return "go";
  if (name === "cargo" && rest[0] === "test") return "cargo";
  if ((name === "node" || name === "tsx") && rest.includes("--test")) return "node-test";
  return undefined;
}

/** The one runner the command calls; undefined when it calls none gantry knows, or more than one. */
export function runnerOfCommand(command: string | undefined): string | undefined {
  if (!command) return undefined;
  const runners = new Set<string>();
  for (const segment of command.split(/&&|\|\||[;|\n]/)) {
    const words = segment.split(/\s+/).filter(Boolean);
    const runner = segmentRunner(words);
    if (runner) runners.add(runner);
  }
  return runners.size === 1 ? [...runners][0] : undefined;
}
