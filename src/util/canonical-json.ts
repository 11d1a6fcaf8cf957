/**
 * A value as canonical JSON: every object's keys sorted (recursively, by UTF-16 code unit), no
 * whitespace, members whose value is undefined left out, arrays in order (undefined items as null).
 * Two values that JSON.stringify/JSON.parse round-trip to the same data give the same text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
