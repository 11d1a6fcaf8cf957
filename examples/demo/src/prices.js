/** Prices are whole cents everywhere in the shop; dollars appear only at the edges. */

export function toCents(dollars) {
  if (!Number.isFinite(dollars) || dollars < 0) {
    throw new RangeError(`expected a non-negative amount of dollars, got ${dollars}`);
  }
  return Math.round(dollars * 100);
}

export function formatPrice(cents) {
  if (!Number.isInteger(cents)) throw new TypeError(`expected whole cents, got ${cents}`);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
