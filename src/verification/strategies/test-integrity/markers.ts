import { familyOf } from "../../test-conventions.js";
import { type FileLines, newLines } from "./patch-lines.js";

/** One marker that stops a test from running (or runs only some), found on a line the story added. */
export interface MarkerHit {
  line: number;
  /** What the marker is, e.g. `it.only (vitest/jest/mocha/node:test)`. */
  marker: string;
  text: string;
}

interface MarkerRule {
  /** Which frameworks read it, for the evidence. */
  frameworks: string;
  pattern: RegExp;
}

const JS = "node:test/vitest/jest/mocha";

/** By source family (test-conventions' familyOf). The first group of each pattern names the marker. */
const RULES_BY_FAMILY: Record<string, MarkerRule[]> = {
  js: [
    // test.skip( it.only( describe.skip( test.todo( it.skipIf( test.fails( test.concurrent.skip(
    {
      frameworks: JS,
      pattern:
        /\b((?:it|test|describe|suite|context|specify|bench)(?:\.(?:concurrent|sequential|serial|each))*\.(?:skip|todo|only|skipIf|runIf|fails))\b/,
    },
    // xit( xdescribe( xtest( fit( fdescribe(
    {
      frameworks: "jest/vitest/mocha",
      pattern: /\b(x(?:it|test|describe|context|specify)|f(?:it|describe))\s*\(/,
    },
    // { skip: true } { todo: "later" } { only: true } (also on a line of its own inside the options)
    {
      frameworks: "node:test",
      pattern: /(?:^|[{,(])\s*((?:skip|todo|only)\s*:)\s*(?!\s*(?:false|undefined|null)\b)/,
    },
    // t.skip() t.todo() this.skip() ctx.skip()
    { frameworks: "node:test/mocha/vitest", pattern: /\b((?:t|ctx|context|this)\.(?:skip|todo)\s*\()/ },
  ],
  py: [
    { frameworks: "pytest", pattern: /\b(pytest\.mark\.(?:skip|skipif|xfail))\b/ },
    { frameworks: "pytest", pattern: /\b(pytest\.(?:skip|xfail|importorskip)\s*\()/ },
    { frameworks: "unittest", pattern: /\b(unittest\.(?:skip|skipIf|skipUnless|expectedFailure))\b/ },
    { frameworks: "pytest/unittest", pattern: /^\s*(@(?:skip|skipIf|skipUnless|expectedFailure|xfail))\b/ },
    { frameworks: "unittest", pattern: /\b(skipTest\s*\(|SkipTest\b)/ },
  ],
  go: [{ frameworks: "go test", pattern: /\.\s*(Skip|Skipf|SkipNow)\s*\(/ }],
  rs: [{ frameworks: "cargo test", pattern: /(#\s*\[\s*ignore)\b/ }],
  // xit / fit / skip / pending in RSpec and minitest; `skip: true` / `:skip =>` metadata.
  rb: [
    {
      frameworks: "rspec",
      pattern: /^\s*(x(?:it|describe|context|specify|example)|f(?:it|describe|context))\b/,
    },
    { frameworks: "rspec/minitest", pattern: /^\s*(skip|pending)\b/ },
    { frameworks: "rspec", pattern: /(:(?:skip|pending|focus)\s*=>|\b(?:skip|pending|focus):)/ },
  ],
  java: [{ frameworks: "JUnit", pattern: /^\s*(@(?:Disabled\w*|Ignore))\b/ }],
  kt: [{ frameworks: "JUnit", pattern: /^\s*(@(?:Disabled\w*|Ignore))\b/ }],
  php: [{ frameworks: "PHPUnit", pattern: /\b(mark(?:TestSkipped|TestIncomplete)\s*\()/ }],
  cs: [{ frameworks: "NUnit/MSTest/xUnit", pattern: /(\[\s*Ignore\b|\bSkip\s*=)/ }],
  swift: [{ frameworks: "XCTest", pattern: /\b(XCTSkip(?:If|Unless)?)\b/ }],
  ex: [{ frameworks: "ExUnit", pattern: /^\s*(@(?:module)?tag\s*:skip|@(?:module)?tag\s+skip:)/ }],
};

/** Keyed by `familyOf`'s answer, undefined (no known family) included, so a lookup needs no guard. */
const RULES = new Map<string | undefined, MarkerRule[]>(Object.entries(RULES_BY_FAMILY));

/** Whether markers are looked for in this file's family at all. */
export function hasMarkerRules(path: string): boolean {
  return RULES.has(familyOf(path));
}

/**
 * Skip / todo / only markers on the lines a change added to `path`. A line that was only moved or
 * re-indented (the same text, trimmed, among the removed lines) is not new and does not count.
 */
export function addedMarkers(path: string, lines: FileLines): MarkerHit[] {
  const rules = RULES.get(familyOf(path)) ?? [];
  const hits: MarkerHit[] = [];
  for (const { line, text } of newLines(lines)) {
    for (const rule of rules) {
      const match = rule.pattern.exec(text);
      if (!match) continue;
      const name = (match[1] as string).replace(/\s/g, "");
      hits.push({ line, marker: `${name} (${rule.frameworks})`, text: text.trim().slice(0, 200) });
      break;
    }
  }
  return hits;
}
