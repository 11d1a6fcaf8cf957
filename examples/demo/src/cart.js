/** A cart is a plain object; every function returns a new cart and never changes the one it was given. */

export function createCart() {
  return { items: [] };
}

export function addItem(cart, { sku, name, priceCents, qty = 1, weightGrams = 0 }) {
  if (!sku) throw new TypeError("expected an item with a sku");
  if (!Number.isInteger(priceCents) || priceCents < 0) {
    throw new RangeError(`expected a price in whole cents, got ${priceCents}`);
  }
  if (!Number.isInteger(qty) || qty < 1)
    throw new RangeError(`expected a quantity of at least 1, got ${qty}`);
  const existing = cart.items.find((item) => item.sku === sku);
  if (existing) {
    return {
      items: cart.items.map((item) => (item.sku === sku ? { ...item, qty: item.qty + qty } : item)),
    };
  }
  return { items: [...cart.items, { sku, name: name ?? sku, priceCents, qty, weightGrams }] };
}

export function removeItem(cart, sku) {
  return { items: cart.items.filter((item) => item.sku !== sku) };
}

export function subtotal(cart) {
  return cart.items.reduce((sum, item) => sum + item.priceCents * item.qty, 0);
}

export function itemCount(cart) {
  return cart.items.reduce((count, item) => count + item.qty, 0);
}

export function cartWeight(cart) {
  return cart.items.reduce((grams, item) => grams + item.weightGrams * item.qty, 0);
}
