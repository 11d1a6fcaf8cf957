import { oneLine, withoutEscapeCodes } from "../util/text.js";

/** `12.3s`: how progress lines have always shown a duration. */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** `12.3s`, `4m 05s`, `1h 02m`. */
export function duration(ms: number): string {
  if (ms < 60_000) return seconds(ms);
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

export const usd = (amount: number): string => `$${amount.toFixed(2)}`;

// Characters XML 1.0 does not allow at all, even escaped: C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/F.
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe in XML and HTML content and in quoted attribute values; escape codes and forbidden characters dropped. */
export function escapeMarkup(text: string): string {
  return withoutEscapeCodes(text)
    .replace(NOT_XML, "")
    .replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/** One Markdown table cell: a single line, table pipes and inline markup escaped, HTML neutralised. */
export function markdownCell(text: string): string {
  return oneLine(text)
    .replace(/[&<>]/g, (c) => ENTITIES[c] as string)
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`);
}
