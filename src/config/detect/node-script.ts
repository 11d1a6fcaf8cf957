/**
 * Reading a package.json `test` script: which runner it calls (following `npm run other` a few levels)
 * and, for node's own runner, the same call with the test paths replaced by `{{files}}`.
 */

export type NodeRunner = "vitest" | "jest" | "mocha" | "node";

/** npm's `npm init` placeholder: a test script that only fails. */
export function isPlaceholderTestScript(script: string): boolean {
  return /no test specified/i.test(script) && /\bexit 1\b/.test(script);
}

const OPERATORS = ["&&", "||", ";", "|"];

/**
 * Splits a shell command into words on unquoted whitespace, keeping each word's quotes as written;
 * the operators `&&`, `||`, `;` and `|` outside quotes are words of their own.
 */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: string | undefined;
  const end = () => {
    if (word) words.push(word);
    word = "";
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    if (quote) {
      word += ch;
      if (ch === quote) quote = undefined;
      continue;
    }
    const operator = OPERATORS.find((op) => command.startsWith(op, i));
    if (operator) {
      end();
      words.push(operator);
      i += operator.length - 1;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      word += ch;
    } else if (/\s/.test(ch)) end();
    else word += ch;
  }
  end();
  return words;
}

const unquote = (word: string): string => word.replace(/^(["'])(.*)\1$/, "$2");
const program = (word: string): string => unquote(word).split("/").pop() ?? "";
const isAssignment = (word: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** The simple commands of a script, split at `&&`, `||`, `;` and `|` (quotes are not split). */
export function scriptSegments(script: string): string[][] {
  const segments: string[][] = [[]];
  for (const word of shellWords(script)) {
    if (OPERATORS.includes(word)) segments.push([]);
    else segments.at(-1)?.push(word);
  }
  return segments.filter((s) => s.length > 0);
}

/** `npm run x`, `npm run-script x`, `yarn x`, `pnpm [run] x`, `bun run x` → `x`. */
function referencedScript(words: string[]): string | undefined {
  const [tool, a, b] = words.map(unquote);
  if (tool === "npm" && (a === "run" || a === "run-script")) return b;
  if (tool === "npm" && a === "test") return "test";
  if ((tool === "pnpm" || tool === "bun") && a === "run") return b;
  if (tool === "yarn" || tool === "pnpm") return a === "run" ? b : a;
  return undefined;
}

/** The script with `npm run other` segments replaced by the other script, up to `depth` levels. */
export function expandScript(script: string, scripts: Record<string, string>, depth = 3): string[][] {
  const out: string[][] = [];
  for (const segment of scriptSegments(script)) {
    const name = referencedScript(segment);
    const target = name && name !== "test" ? scripts[name] : undefined;
    if (depth > 0 && target !== undefined) out.push(...expandScript(target, scripts, depth - 1));
    else out.push(segment);
  }
  return out;
}

/** The runner a segment calls, if it is one gantry knows. */
export function segmentRunner(words: string[]): NodeRunner | undefined {
  const names = words.map(program);
  for (const [i, name] of names.entries()) {
    if (name === "vitest") return "vitest";
    if (name === "jest") return "jest";
    if (name === "mocha" || name === "_mocha") return "mocha";
    if ((name === "node" || name === "tsx") && names.slice(i + 1).includes("--test")) return "node";
  }
  return undefined;
}

export function usesWatch(segments: string[][]): boolean {
  return segments.some((s) => s.some((w) => /^--watch(All)?(=|$)/.test(unquote(w))));
}

/** node options that take their value as the next word when written without `=`. */
const VALUE_FLAGS = new Set([
  "--import",
  "--require",
  "-r",
  "--loader",
  "--experimental-loader",
  "--env-file",
  "--conditions",
  "-C",
  "--test-reporter",
  "--test-reporter-destination",
  "--test-name-pattern",
  "--test-skip-pattern",
  "--test-concurrency",
  "--test-timeout",
  "--test-shard",
  "--tsconfig",
]);

/**
 * `node --import tsx --test test/` → `node --import tsx --test --test-reporter=spec {{files}}`: the
 * script's own call with its paths replaced, so the scoped run loads tests the way the suite does.
 * Leading `VAR=value` words are kept; `--watch` is dropped; tsx is called through npx. The spec
 * reporter is added when the script names none, for a summary with counts in any terminal.
 */
export function nodeTestCommand(words: string[], files?: string): string {
  const start = words.findIndex((w) => program(w) === "node" || program(w) === "tsx");
  const env = words.slice(0, Math.max(start, 0)).filter(isAssignment);
  const call = words[start] ?? "node";
  const out = [...env, program(call) === "tsx" ? "npx tsx" : "node"];
  const rest = words.slice(start + 1);
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i] as string;
    const bare = unquote(word);
    if (!bare.startsWith("-")) {
      if (files === undefined) out.push(word);
      continue;
    }
    if (/^--watch(=|$)/.test(bare)) continue;
    out.push(word);
    if (VALUE_FLAGS.has(bare) && rest[i + 1] !== undefined) out.push(rest[++i] as string);
  }
  if (!out.some((w) => unquote(w).startsWith("--test-reporter"))) {
    const at = out.findIndex((w) => unquote(w) === "--test");
    out.splice(at < 0 ? out.length : at + 1, 0, "--test-reporter=spec");
  }
  if (files !== undefined) out.push(files);
  return out.join(" ");
}
