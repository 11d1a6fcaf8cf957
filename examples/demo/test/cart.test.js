import assert from "node:assert/strict";
import { test } from "node:test";
import { addItem, cartWeight, createCart, itemCount, removeItem, subtotal } from "../src/cart.js";

const mug = { sku: "MUG", name: "Mug", priceCents: 450, weightGrams: 350 };
const tea = { sku: "TEA", name: "Green tea", priceCents: 799, weightGrams: 100 };

test("an empty cart has no items, no subtotal and no weight", () => {
  const cart = createCart();
  assert.equal(itemCount(cart), 0);
  assert.equal(subtotal(cart), 0);
  assert.equal(cartWeight(cart), 0);
});

test("adding the same sku twice merges the lines", () => {
  const cart = addItem(addItem(createCart(), mug), { ...mug, qty: 2 });
  assert.equal(cart.items.length, 1);
  assert.equal(itemCount(cart), 3);
  assert.equal(subtotal(cart), 1350);
  assert.equal(cartWeight(cart), 1050);
});

test("addItem and removeItem leave the original cart alone", () => {
  const empty = createCart();
  const one = addItem(empty, tea);
  const none = removeItem(one, "TEA");
  assert.equal(empty.items.length, 0);
  assert.equal(one.items.length, 1);
  assert.equal(none.items.length, 0);
});

test("addItem rejects bad prices and quantities", () => {
  assert.throws(() => addItem(createCart(), { ...mug, priceCents: 4.5 }), RangeError);
  assert.throws(() => addItem(createCart(), { ...mug, qty: 0 }), RangeError);
  assert.throws(() => addItem(createCart(), { name: "no sku", priceCents: 1 }), TypeError);
});
