/**
 * One entry point for every test log: normalise it, then parse it with the runner's parser when the
 * runner is known (named, or read from the test command), else with the parsers that recognise it.
 * Parsers are asked most specific first: formats with an unmistakable marker (go's JSON events,
 * cargo's `test result:`, pytest's session banner, vitest's and jest's summaries, node's `ℹ tests`)
 * before mocha's looser `N passing`, and the generic JUnit and TAP readers last, so that vitest's or
 * node's own JUnit and TAP output keeps its runner's name. Two runners that each read counts in the
 * same output is UNPARSED: one of them is text printed by something else, and which is not knowable.
 */
import { cargoParser } from "./cargo.js";
import { runnerOfCommand } from "./command-runner.js";
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

const EMPTY =
  "the test output is empty: gantry reads the runner's own summary, so let the test command print it " +
  "(not pytest -p no:terminal, not output sent to /dev/null)";

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
/** Formats several runners write: read only when no runner's own parser could. */
const GENERIC = new Set([junitParser.name, tapParser.name]);

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
  /** The command that printed the output: the runner it calls decides, as if named. */
  command?: string;
}

/** One parser's answer to an output, for `gantry parse-tests`: read it, recognised it but not its counts, or declined. */
export interface ParserTrial {
  runner: string;
  outcome: "read" | "unreadable" | "declined" | "not asked";
  why: string;
}

export function parseTestOutput(text: string, options: ParseOptions = {}): ParsedTests {
  return parseWithTrials(text, options).parsed;
}

/** The reading, and each parser's answer on the way to it. */
export function parseWithTrials(
  text: string,
  options: ParseOptions = {},
): { parsed: ParsedTests; tried: ParserTrial[] } {
  const name = options.runner ?? runnerOfCommand(options.command);
  const chosen = name ? getParser(name) : undefined;
  const normalized = normalizeOutput(text);
  if (chosen) {
    const parsed = chosen.parse(normalized);
    const why = options.runner ? "named with --runner" : `the command runs ${chosen.name}`;
    return { parsed, tried: [trialOf(chosen.name, parsed, why)] };
  }
  if (!normalized.trim()) return { parsed: unparsed("unknown", EMPTY), tried: [] };
  let first: ParsedTests | undefined;
  const readings: ParsedTests[] = [];
  const tried: ParserTrial[] = [];
  for (const parser of PARSERS) {
    if (readings.length > 0 && GENERIC.has(parser.name)) {
      tried.push({ runner: parser.name, outcome: "not asked", why: "a runner's own parser already read it" });
      continue;
    }
    if (!parser.detect(normalized)) {
      tried.push({ runner: parser.name, outcome: "declined", why: `no ${parser.looksFor}` });
      continue;
    }
    const parsed = parser.parse(normalized);
    tried.push(trialOf(parser.name, parsed, "recognised"));
    // A recognised runner that could not read its counts says why; another parser that can read
    // the same output (a JUnit report printed after the console output, say) gets its turn first.
    if (parsed.status !== "UNPARSED") readings.push(parsed);
    else first ??= parsed;
  }
  const [reading, other] = readings;
  if (reading && other) return { parsed: conflicting(reading, other), tried };
  const parsed =
    reading ??
    first ??
    unparsed("unknown", `no known test runner output was recognised (tried: ${parserNames.join(", ")})`);
  return { parsed, tried };
}

function trialOf(runner: string, parsed: ParsedTests, how: string): ParserTrial {
  if (parsed.status === "UNPARSED")
    return { runner, outcome: "unreadable", why: `${how}, but ${parsed.reason ?? "no counts"}` };
  return {
    runner,
    outcome: "read",
    why: `${how}: ${parsed.status}, ${parsed.passed} passed, ${parsed.failed} failed, ${parsed.skipped} skipped`,
  };
}

function conflicting(a: ParsedTests, b: ParsedTests): ParsedTests {
  const counts = (p: ParsedTests): string => `${p.runner}: ${p.passed} passed, ${p.failed} failed`;
  return unparsed(
    "unknown",
    `two different runners' summaries in one output (${counts(a)}; ${counts(b)}): one was printed by ` +
      "something else; name the runner in the test command (quality.commands.test)",
  );
}
