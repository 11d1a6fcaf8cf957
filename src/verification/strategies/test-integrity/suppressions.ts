import { posix } from "node:path";
import { type FileLines, newLines } from "./patch-lines.js";
import { suppressionKind } from "./suppression-kind.js";

/** One comment or attribute that tells a linter or type checker to look away, on a line the story added. */
export interface SuppressionHit {
  line: number;
  /** What it is and who reads it, e.g. `biome-ignore (biome)`. */
  suppression: string;
  text: string;
  /** It names the rule or error it silences on its line (or, for `@ts-expect-error`, says why): not blanket. */
  specific: boolean;
  /** The rules or error codes it names. */
  codes: string[];
}

interface SuppressionRule {
  tools: string;
  /** The first group names the suppression. */
  pattern: RegExp;
}

/** The start of a comment in C-like syntax: `//`, `/*`, `/**`, `<!--`, or a block comment's inner line. */
const C_OPEN = String.raw`(?:\/\/+|\/\*+|<!--|^\s*\**)\s*`;
const rule = (tools: string, source: string, flags = ""): SuppressionRule => ({
  tools,
  pattern: new RegExp(source, flags),
});
const cComment = (tools: string, token: string, flags = "") => rule(tools, `${C_OPEN}(${token})`, flags);
const hashComment = (tools: string, token: string) => rule(tools, String.raw`#\s*(${token})`, "i");

const STYLELINT = cComment("stylelint", String.raw`stylelint-disable(?:-next-line|-line)?\b`);
const JS: SuppressionRule[] = [
  cComment("eslint", String.raw`eslint-disable(?:-next-line|-line)?\b`),
  // `/* eslint no-console: "off" */`: a rule configured off inline.
  rule("eslint", String.raw`\/\*+\s*(eslint)\s+[@\w/-]+\s*:`),
  cComment("oxlint", String.raw`oxlint-disable(?:-next-line|-line)?\b`),
  cComment("biome", String.raw`(?:biome|rome)-ignore(?:-all|-start)?\b`),
  cComment("typescript", String.raw`@ts-(?:ignore|nocheck|expect-error)\b`),
  cComment("tslint", String.raw`tslint:disable(?:-next-line|-line)?\b`),
  cComment("deno lint", String.raw`deno-lint-ignore(?:-file)?\b`),
  cComment("svelte", String.raw`svelte-ignore\b`),
  cComment("prettier", String.raw`prettier-ignore\b`),
  STYLELINT,
];
const CSS: SuppressionRule[] = [
  STYLELINT,
  cComment("biome", String.raw`biome-ignore(?:-all|-start)?\b`),
  cComment("prettier", String.raw`prettier-ignore\b`),
];
const PY: SuppressionRule[] = [
  hashComment("mypy/pyright", String.raw`type\s*:\s*ignore`),
  hashComment("flake8/ruff", String.raw`noqa\b`),
  hashComment("ruff/flake8", String.raw`(?:ruff|flake8)\s*:\s*noqa\b`),
  hashComment("pyright", String.raw`pyright\s*:\s*(?!strict\b)\w+`),
  hashComment("mypy", String.raw`mypy\s*:\s*(?!strict\b)[\w-]+`),
  hashComment("pylint", String.raw`pylint\s*:\s*disable`),
  hashComment("pytype", String.raw`pytype\s*:\s*disable`),
  hashComment("pyre", "pyre-(?:ignore|fixme)"),
  hashComment("bandit", String.raw`nosec\b`),
  hashComment("black/ruff format", String.raw`fmt\s*:\s*(?:off|skip)\b`),
  hashComment("isort", String.raw`isort\s*:\s*skip`),
];
const GO: SuppressionRule[] = [
  rule("golangci-lint", String.raw`\/\/\s*(nolint)\b`),
  rule("staticcheck", String.raw`\/\/\s*(lint:(?:file-)?ignore)\b`),
  rule("gosec", String.raw`\/\/\s*(#?nosec)\b`),
  // A file built under no configuration is neither compiled, vetted nor linted.
  rule("go build", String.raw`\/\/\s*(go:build\s+ignore|\+build\s+ignore)\b`),
];
const RS: SuppressionRule[] = [
  rule("rustc/clippy", String.raw`(#\s*!?\s*\[\s*(?:allow|expect)\s*\()`),
  rule("rustc/clippy", String.raw`(#\s*!?\s*\[\s*cfg_attr\s*\(.*\b(?:allow|expect)\s*\()`),
  rule("rustfmt", String.raw`(#\s*!?\s*\[\s*rustfmt\s*::\s*skip)\b`),
];
const JVM: SuppressionRule[] = [
  rule("javac/kotlinc", String.raw`(@(?:file\s*:\s*)?Suppress(?:Warnings|FBWarnings|Lint)?)\b`),
  rule("sonar", String.raw`\/\/\s*(NOSONAR)\b`),
  rule("checkstyle", String.raw`\/\/\s*(CHECKSTYLE\s*:\s*OFF)`, "i"),
  rule("IntelliJ", String.raw`\/\/\s*(noinspection)\b`),
  rule("ktlint", String.raw`\/\/\s*(ktlint-disable)\b`),
];
const CS: SuppressionRule[] = [
  rule("C# compiler", String.raw`(#\s*pragma\s+warning\s+disable)\b`),
  rule("code analysis", String.raw`(\[\s*(?:assembly\s*:\s*)?SuppressMessage)\b`),
  rule("ReSharper", String.raw`\/\/\s*(ReSharper\s+disable)\b`),
];
const PHP: SuppressionRule[] = [
  cComment("phpcs", String.raw`phpcs:(?:ignore|disable)\b`),
  rule("phpcs", String.raw`#\s*(phpcs:(?:ignore|disable))\b`),
  rule("phpstan/psalm", String.raw`(@(?:phpstan-ignore[\w-]*|psalm-suppress|codingStandardsIgnore\w*))\b`),
];
const C: SuppressionRule[] = [
  rule("clang-tidy", String.raw`(NOLINT(?:NEXTLINE|BEGIN)?)\b`),
  rule("gcc/clang", String.raw`(#\s*pragma\s+(?:GCC|clang)\s+diagnostic\s+ignored)\b`),
  cComment("cppcheck", String.raw`cppcheck-suppress\b`),
];
const RB = [hashComment("rubocop", String.raw`rubocop\s*:\s*(?:disable|todo)\b`)];
const SWIFT = [cComment("swiftlint", String.raw`swiftlint\s*:\s*disable\b`)];
const SH = [hashComment("shellcheck", String.raw`shellcheck\s+disable\b`)];
/** By file extension (lower case). */
const RULES = new Map<string, SuppressionRule[]>([
  [".ts", JS],
  [".tsx", JS],
  [".mts", JS],
  [".cts", JS],
  [".js", JS],
  [".jsx", JS],
  [".mjs", JS],
  [".cjs", JS],
  [".vue", JS],
  [".svelte", JS],
  [".astro", JS],
  [".css", CSS],
  [".scss", CSS],
  [".sass", CSS],
  [".less", CSS],
  [".py", PY],
  [".pyi", PY],
  [".go", GO],
  [".rs", RS],
  [".rb", RB],
  [".java", JVM],
  [".kt", JVM],
  [".kts", JVM],
  [".cs", CS],
  [".php", PHP],
  [".swift", SWIFT],
  [".c", C],
  [".h", C],
  [".cc", C],
  [".cpp", C],
  [".cxx", C],
  [".hpp", C],
  [".hh", C],
  [".sh", SH],
  [".bash", SH],
]);

/** Whether suppressions are looked for in this file at all (by its extension). */
export function hasSuppressionRules(path: string): boolean {
  return RULES.has(posix.extname(path).toLowerCase());
}

/**
 * Lint / type-check suppressions on the lines a change added to `path`. A line that was only moved or
 * re-indented (the same text, trimmed, among the removed lines) is not new and does not count.
 */
export function addedSuppressions(path: string, lines: FileLines): SuppressionHit[] {
  const rules = RULES.get(posix.extname(path).toLowerCase()) ?? [];
  const hits: SuppressionHit[] = [];
  for (const { line, text } of newLines(lines)) {
    for (const { tools, pattern } of rules) {
      const match = pattern.exec(text);
      if (!match) continue;
      const name = (match[1] as string).replace(/\s+/g, " ");
      const kind = suppressionKind(name.trim(), text.slice(match.index + match[0].length));
      hits.push({ line, suppression: `${name} (${tools})`, text: text.trim().slice(0, 200), ...kind });
      break;
    }
  }
  return hits;
}
