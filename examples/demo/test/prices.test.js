import assert from "node:assert/strict";
import { test } from "node:test";
import { formatPrice, toCents } from "../src/prices.js";

test("toCents rounds dollars to whole cents", () => {
  assert.equal(toCents(12.3), 1230);
  assert.equal(toCents(0.1 + 0.2), 30);
  assert.equal(toCents(0), 0);
});

test("toCents rejects negative and non-numeric amounts", () => {
  assert.throws(() => toCents(-1), RangeError);
  assert.throws(() => toCents(Number.NaN), RangeError);
});

test("formatPrice prints dollars and two-digit cents", () => {
  assert.equal(formatPrice(1230), "$12.30");
  assert.equal(formatPrice(5), "$0.05");
  assert.equal(formatPrice(0), "$0.00");
  assert.equal(formatPrice(-250), "-$2.50");
});

test("formatPrice rejects fractions of a cent", () => {
  assert.throws(() => formatPrice(1.5), TypeError);
});
