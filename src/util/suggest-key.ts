/** Keys compared without case and punctuation: `max_attempts` and `maxAttempts` are one key. */
const normalize = (key: string) => key.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The known key an unknown one is close to, or undefined; `present` are the keys the object has. */
export function suggestKey(
  key: string,
  known: readonly string[],
  aliases: Record<string, string>,
  present: ReadonlySet<string> = new Set(),
): string | undefined {
  const norm = normalize(key);
  if (norm === "") return undefined;
  const same = known.find((k) => normalize(k) === norm);
  if (same) return same;
  if (Object.hasOwn(aliases, norm)) return aliases[norm];
  // A near miss is a typo only when the key it is near is not there as well (`passed` beside `passes` is not).
  const limit = norm.length <= 4 ? 1 : 2;
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    if (present.has(candidate)) continue;
    const distance = editDistance(norm, normalize(candidate));
    if (distance <= limit && (!best || distance < best.distance)) best = { key: candidate, distance };
  }
  return best?.key;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return Math.abs(a.length - b.length);
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, at(i - 2, j - 2) + 1);
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
