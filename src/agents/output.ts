/** Reading what agent CLIs print: JSON lines, one JSON document, numbers, and rate-limit messages. */

export type Json = Record<string, unknown>;

/** Every line of `text` that is a JSON object; other lines (stderr interleaved, banners) are skipped. */
export function jsonLines(text: string): Json[] {
  const out: Json[] = [];
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed.startsWith("{")) continue;
    try {
      const value: unknown = JSON.parse(trimmed);
      if (isObject(value)) out.push(value);
    } catch {
      // Not JSON, or a line cut by interleaved output.
    }
  }
  return out;
}

/**
 * The last JSON object printed as one document, on one line or pretty-printed over many: tried from each
 * line that starts with `{` at column 0, last first, up to the last `}`.
 */
export function lastJsonDocument(text: string): Json | undefined {
  const end = text.lastIndexOf("}");
  if (end < 0) return undefined;
  const starts: number[] = [];
  if (text.startsWith("{")) starts.push(0);
  for (let i = text.indexOf("\n{"); i >= 0 && i < end; i = text.indexOf("\n{", i + 1)) starts.push(i + 1);
  for (const start of starts.reverse()) {
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (isObject(value)) return value;
    } catch {
      // Try an earlier start.
    }
  }
  return undefined;
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function obj(value: unknown): Json {
  return isObject(value) ? value : {};
}

/**
 * Rate-limit and quota messages the agent CLIs and their providers document: HTTP 429, "rate limit",
 * "too many requests", quota exceeded / RESOURCE_EXHAUSTED (Google), "overloaded" (Anthropic 529),
 * "usage limit" (subscription plans). Only consulted for a session that failed.
 */
const RATE_LIMIT =
  /\b429\b|rate[ _-]?limit|too many requests|quota(?: has been)? (?:exceeded|exhausted)|exceeded your current quota|resource[_ ]exhausted|overloaded|usage limit/i;

export function looksRateLimited(text: string): boolean {
  return RATE_LIMIT.test(text);
}
