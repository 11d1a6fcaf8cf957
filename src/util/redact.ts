export const REDACTED = "[redacted]";

export interface Redactor {
  /** True when there is nothing to redact (no secret in the environment): callers may skip the work. */
  readonly empty: boolean;
  text(value: string): string;
  /** A copy of `value` with every string redacted; the original is not touched. */
  deep<T>(value: T): T;
}

/** Replaces each secret value (longest first, so one containing another goes whole) with [redacted]. */
export function createRedactor(secrets: readonly string[]): Redactor {
  const ordered = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  const text = (value: string): string => {
    let out = value;
    for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
  const deep = <T>(value: T, depth = 0): T => {
    if (typeof value === "string") return text(value) as T;
    if (value === null || typeof value !== "object" || depth > 64) return value;
    if (Array.isArray(value)) return value.map((v) => deep(v, depth + 1)) as T;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) copy[k] = deep(v, depth + 1);
    return copy as T;
  };
  return {
    empty: ordered.length === 0,
    text: ordered.length === 0 ? (v) => v : text,
    deep: ordered.length === 0 ? (v) => v : (v) => deep(v),
  };
}
