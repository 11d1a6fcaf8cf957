// What the scripted agent writes for each story: whole files, so writing them twice changes nothing.
// Each entry shows one part of gantry's pipeline; see ../README.md for the table.
// changeFor(storyId, role, sessions) returns { note, files: { "src/x.js": "...", ... } } or null
// (no script for that story). `sessions` counts this agent's sessions so far, including this one:
// { role: n for this story and role, story: n for this story in any role }.

const US001_CODE = `/** Turns a price typed by shop staff ("$12.30", " 4 ") into whole cents. */
const PRICE = /^\\$?(\\d+)(?:\\.(\\d{1,2}))?$/;

export function parsePrice(text) {
  const match = PRICE.exec(String(text).trim());
  if (!match) throw new TypeError(\`expected a price like "$12.30", got \${JSON.stringify(text)}\`);
  const [, dollars, cents = "0"] = match;
  return Number(dollars) * 100 + Number(cents.padEnd(2, "0"));
}
`;

const US001_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { parsePrice } from "../src/parse-price.js";

test("parsePrice reads dollars and cents", () => {
  assert.equal(parsePrice("$12.30"), 1230);
  assert.equal(parsePrice("4"), 400);
  assert.equal(parsePrice(" $0.5 "), 50);
});

test("parsePrice rejects what is not a price", () => {
  for (const text of ["", "abc", "-3", "1.234", "$"]) {
    assert.throws(() => parsePrice(text), TypeError, text);
  }
});
`;

/** US-002: the implement session divides by 10 instead of 100; rectify sessions write it right. */
const us002Code = (buggy) => `/** The price after a percentage discount, rounded to the nearest cent. */
export function applyDiscount(cents, percent) {
  if (!Number.isFinite(percent) || percent < 0 || percent > 100) {
    throw new RangeError(\`expected a discount between 0 and 100 percent, got \${percent}\`);
  }
  return ${buggy ? "Math.round(cents * (1 - percent / 10))" : "Math.round((cents * (100 - percent)) / 100)"};
}
`;

const US002_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { applyDiscount } from "../src/discount.js";

test("applyDiscount takes a percentage off, rounded to the nearest cent", () => {
  assert.equal(applyDiscount(2000, 15), 1700);
  assert.equal(applyDiscount(999, 10), 899);
});

test("a 0% discount leaves the price alone and 100% makes it free", () => {
  assert.equal(applyDiscount(999, 0), 999);
  assert.equal(applyDiscount(999, 100), 0);
});

test("a percentage outside 0..100 throws a RangeError", () => {
  assert.throws(() => applyDiscount(100, -5), RangeError);
  assert.throws(() => applyDiscount(100, 101), RangeError);
});
`;

/** US-003: correct, but `tax` is a `let` never reassigned: biome's useConst (an error in biome.json). */
const US003_CODE = `/** The price with sales tax added, the tax rounded to the nearest cent. */
export function addTax(cents, ratePercent) {
  if (!Number.isFinite(ratePercent) || ratePercent < 0) {
    throw new RangeError(\`expected a non-negative tax rate, got \${ratePercent}\`);
  }
  let tax = Math.round((cents * ratePercent) / 100);
  return cents + tax;
}
`;

const US003_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { addTax } from "../src/tax.js";

test("addTax adds the tax rounded to the nearest cent", () => {
  assert.equal(addTax(1000, 8.25), 1083);
  assert.equal(addTax(999, 0), 999);
});

test("addTax rejects a negative or non-numeric rate", () => {
  assert.throws(() => addTax(1000, -1), RangeError);
  assert.throws(() => addTax(1000, Number.NaN), RangeError);
});
`;

/** US-004: every session makes a different mistake, so its test never passes. */
function us004Mistake(session) {
  const right = { base: 499, perKilo: 150, round: "ceil", freeWhenEmpty: true };
  const mistakes = [
    { ...right, round: "floor", what: "counts whole kilograms above the first instead of started ones" },
    { ...right, base: 490, what: "charges $4.90 instead of $4.99 for the first kilogram" },
    { ...right, freeWhenEmpty: false, what: "charges for an empty parcel" },
  ];
  const perKilo = 150 + 5 * (session - mistakes.length);
  return (
    mistakes[session - 1] ?? {
      ...right,
      perKilo,
      what: `charges ${perKilo} cents per extra kilogram, not 150`,
    }
  );
}

function us004Code(session) {
  const m = us004Mistake(session);
  const empty = m.freeWhenEmpty ? "  if (weightGrams === 0) return 0;\n" : "";
  return `// Written by the demo's scripted agent, US-004 session ${session}: it ${m.what}.
/** Shipping for a parcel: free when empty, $4.99 up to 1000 g, $1.50 more per started 1000 g above that. */
export function shippingCost(weightGrams) {
  if (!Number.isFinite(weightGrams) || weightGrams < 0) {
    throw new RangeError(\`expected a weight in grams, got \${weightGrams}\`);
  }
${empty}  const extraKilos = Math.${m.round}(Math.max(0, weightGrams - 1000) / 1000);
  return ${m.base} + ${m.perKilo} * extraKilos;
}
`;
}

const US004_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { shippingCost } from "../src/shipping.js";

test("an empty parcel ships free", () => {
  assert.equal(shippingCost(0), 0);
});

test("up to 1000 g costs $4.99", () => {
  assert.equal(shippingCost(1), 499);
  assert.equal(shippingCost(1000), 499);
});

test("every started 1000 g above the first adds $1.50", () => {
  assert.equal(shippingCost(1001), 649);
  assert.equal(shippingCost(2500), 799);
});

test("a negative weight throws a RangeError", () => {
  assert.throws(() => shippingCost(-1), RangeError);
});
`;

const US006_CODE = `import { subtotal } from "./cart.js";
import { formatPrice } from "./prices.js";

/** One line per cart item, then the subtotal. */
export function receiptLines(cart) {
  const lines = cart.items.map(
    (item) =>
      \`\${item.qty} x \${item.name} @ \${formatPrice(item.priceCents)} = \${formatPrice(item.priceCents * item.qty)}\`,
  );
  return [...lines, \`Subtotal: \${formatPrice(subtotal(cart))}\`];
}
`;

const US006_TEST = `import assert from "node:assert/strict";
import { test } from "node:test";
import { addItem, createCart } from "../src/cart.js";
import { receiptLines } from "../src/receipt.js";

test("receiptLines lists each item and the subtotal", () => {
  let cart = addItem(createCart(), { sku: "MUG", name: "Mug", priceCents: 450, qty: 2 });
  cart = addItem(cart, { sku: "TEA", name: "Green tea", priceCents: 799 });
  assert.deepEqual(receiptLines(cart), [
    "2 x Mug @ $4.50 = $9.00",
    "1 x Green tea @ $7.99 = $7.99",
    "Subtotal: $16.99",
  ]);
});

test("an empty cart has only the subtotal line", () => {
  assert.deepEqual(receiptLines(createCart()), ["Subtotal: $0.00"]);
});
`;

const SCRIPTS = {
  "US-001": () => ({
    note: "correct code and test",
    files: { "src/parse-price.js": US001_CODE, "test/parse-price.test.js": US001_TEST },
  }),
  "US-002": (role) =>
    role === "implement"
      ? {
          note: "code with a bug (divides the percentage by 10): its new test fails",
          files: { "src/discount.js": us002Code(true), "test/discount.test.js": US002_TEST },
        }
      : {
          note: "fixed the bug (divides by 100)",
          files: { "src/discount.js": us002Code(false), "test/discount.test.js": US002_TEST },
        },
  "US-003": (role) =>
    role === "autofix"
      ? { note: "nothing to do: lintFix (biome lint --write) already made `tax` a const", files: {} }
      : {
          note: "correct code with a `let` never reassigned (lint error useConst) and its test",
          files: { "src/tax.js": US003_CODE, "test/tax.test.js": US003_TEST },
        },
  "US-004": (_role, sessions) => ({
    note: `wrong code again (session ${sessions.story}: ${us004Mistake(sessions.story).what})`,
    files: { "src/shipping.js": us004Code(sessions.story), "test/shipping.test.js": US004_TEST },
  }),
  "US-006": () => ({
    note: "correct code and test",
    files: { "src/receipt.js": US006_CODE, "test/receipt.test.js": US006_TEST },
  }),
};

export function changeFor(storyId, role, sessions) {
  const script = SCRIPTS[storyId];
  return script ? script(role, sessions) : null;
}
