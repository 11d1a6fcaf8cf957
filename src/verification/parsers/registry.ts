/**
 * One entry point for every test log: normalise it, then parse it with the named runner's parser or
 * with the first parser that recognises it. Parsers are asked most specific first: formats with an
 * unmistakable marker (go's JSON events, cargo's `test result:`, pytest's session banner, vitest's
 * and jest's summaries, node's `ℹ tests`) before mocha's looser `N passing`, and the generic JUnit
 * and TAP readers last, so that vitest's or node's own JUnit and TAP output keeps its runner's name.
 */
import { cargoParser } from "./cargo.js";
import { goParser } from "./go.js";
import { jestParser } from "./jest.js";
import { junitParser } from "./junit.js";
import { mochaParser } from "./mocha.js";
import { nodeTestParser } from "./node-test.js";
import { normalizeOutput } from "./normalize.js";
import { pytestParser } from "./pytest.js";
import { tapParser } from "./tap.js";
import type { ParsedTests, TestOutputParser } from "./types.js";
import { unparsed } from "./util.js";
import { vitestParser } from "./vitest.js";

/** Detection order, most specific first. */
const PARSERS: readonly TestOutputParser[] = [
  goParser,
  cargoParser,
  pytestParser,
  vitestParser,
  jestParser,
  nodeTestParser,
  mochaParser,
  junitParser,
  tapParser,
];

export const parserNames: readonly string[] = PARSERS.map((p) => p.name);

export function listParsers(): string[] {
  return [...parserNames];
}

export function getParser(name: string): TestOutputParser {
  const parser = PARSERS.find((p) => p.name === name);
  if (!parser) throw new Error(`unknown test runner "${name}"; valid runners: ${parserNames.join(", ")}`);
  return parser;
}

export interface ParseOptions {
  /** Parse as this runner's output instead of detecting it. */
  runner?: string;
}

export function parseTestOutput(text: string, options: ParseOptions = {}): ParsedTests {
  const chosen = options.runner ? getParser(options.runner) : undefined;
  const normalized = normalizeOutput(text);
  if (chosen) return chosen.parse(normalized);
  if (!normalized.trim()) return unparsed("unknown", "the test output is empty");
  let first: ParsedTests | undefined;
  for (const parser of PARSERS) {
    if (!parser.detect(normalized)) continue;
    const parsed = parser.parse(normalized);
    // A recognised runner that could not read its counts says why; another parser that can read
    // the same output (a JUnit report printed after the console output, say) gets its turn first.
    if (parsed.status !== "UNPARSED") return parsed;
    first ??= parsed;
  }
  return (
    first ??
    unparsed("unknown", `no known test runner output was recognised (tried: ${parserNames.join(", ")})`)
  );
}
