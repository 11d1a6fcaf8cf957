/**
 * Whether a suppression is specific — it names the rule or error it silences, on the line it is on, or says
 * why — or blanket: it silences every check there, or a whole file. The name is the suppression as
 * `addedSuppressions` found it (`type: ignore`, `eslint-disable-next-line`, `#[allow(`); `rest` is the text
 * after it on the line.
 */
export interface SuppressionKind {
  specific: boolean;
  /** The rules or error codes it names (`attr-defined`, `SLF001`, `no-console`). */
  codes: string[];
}

/** Suppressions that cover a whole file or block, or every check, whatever they name. */
const BLANKET = [
  /^eslint-disable$/,
  /^eslint$/,
  /^oxlint-disable$/,
  /^tslint:disable$/,
  /^stylelint-disable$/,
  /^(?:biome|rome)-ignore-(?:all|start)$/,
  /^@ts-(?:ignore|nocheck)$/,
  /^deno-lint-ignore-file$/,
  /^(?:ruff|flake8)\s*:\s*noqa$/i,
  /^pyright\s*:(?!\s*ignore$)/i,
  /^mypy\s*:/i,
  /^lint:file-ignore$/,
  /^(?:go:build|\+build)\s+ignore$/,
  /^NOSONAR$/,
  /^CHECKSTYLE\s*:\s*OFF$/i,
  /^ktlint-disable$/,
  /^NOLINTBEGIN$/,
  /^phpcs:disable$/,
  /^@file\s*:\s*Suppress/,
  /^#\s*!/,
];

/** Formatter switches: they silence no check, so they are never a gate silenced. */
const FORMATTING = [/^prettier-ignore$/, /^fmt\s*:/i, /^isort\s*:/i, /^#\s*\[\s*rustfmt/];

/** How the codes follow each suppression that must name one: `[code]`, `: CODE`, `(check)`, or a word. */
const CODES: [RegExp, RegExp][] = [
  [/^type\s*:\s*ignore$/i, /^\[([^\]]+)\]/],
  [/^pyright\s*:\s*ignore$/i, /^\[([^\]]+)\]/],
  [/^noqa$/i, /^\s*:\s*([A-Z]+\d+(?:\s*,\s*[A-Z]+\d+)*)/i],
  [/^nolint$/, /^:([\w-]+(?:,[\w-]+)*)/],
  [/^NOLINT(?:NEXTLINE)?$/, /^\(([^)]+)\)/],
  [/^#?nosec$/, /^\s+([A-Z]\d+(?:\s*,\s*[A-Z]\d+)*)/],
  [/^pyre-(?:ignore|fixme)$/, /^\[([^\]]+)\]/],
];

/** Any other suppression is specific when a rule's name follows it: `no-console`, `=invalid-name`, `("x")`. */
const NAMED_RULE = /^\s*[:=]?\s*\(?\s*["']?(-?@?[A-Za-z][\w@/.:-]*\w)/;

export function suppressionKind(name: string, rest: string): SuppressionKind {
  if (FORMATTING.some((p) => p.test(name))) return { specific: true, codes: [] };
  if (BLANKET.some((p) => p.test(name))) return { specific: false, codes: [] };
  if (/^@ts-expect-error$/.test(name)) {
    // Its text is the reason; TypeScript itself fails it once the error is gone.
    const why = rest.replace(/\*\/.*$/, "").trim();
    return { specific: /\w{2,}/.test(why), codes: [] };
  }
  const coded = CODES.find(([pattern]) => pattern.test(name));
  if (coded) {
    const listed = coded[1].exec(rest)?.[1];
    const codes = listed ? listed.split(/\s*,\s*/).filter(Boolean) : [];
    return { specific: codes.length > 0, codes };
  }
  const rule = NAMED_RULE.exec(rest.replace(/^\s*\*\/.*$/, ""))?.[1];
  return rule ? { specific: true, codes: [rule] } : { specific: false, codes: [] };
}
