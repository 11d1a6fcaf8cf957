import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { hasValidMac, macOf, signEntry } from "../../src/ledger/mac.js";
import type { LedgerEntry } from "../../src/model/ledger.js";
import { canonicalJson } from "../../src/util/canonical-json.js";

const entry = (): LedgerEntry => ({
  v: 1,
  runId: "20250301-090000-aaaa",
  feature: "checkout",
  storyId: "US-001",
  gate: "verify",
  verdict: "fail",
  sha: "a".repeat(40),
  tree: "b".repeat(40),
  at: "2025-03-01T09:00:00.000Z",
  attempt: 1,
  detail: { status: "TEST_FAILURE", passCount: 2, failCount: 1, nested: { z: [1, { b: 2, a: 1 }], a: "x" } },
});

describe("canonicalJson", () => {
  test("sorts keys at every depth, keeps array order, drops undefined members", () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { y: 1, x: undefined, w: null }], c: "é\n" } }),
      '{"a":{"c":"é\\n","d":[3,{"w":null,"y":1}]},"b":1}',
    );
    assert.equal(canonicalJson([undefined, 1]), "[null,1]");
  });

  test("the same for the same data whatever the key order, and for a JSON round trip", () => {
    const one = entry();
    const reordered = Object.fromEntries(Object.entries(one).reverse());
    assert.equal(canonicalJson(reordered), canonicalJson(one));
    assert.equal(canonicalJson(JSON.parse(JSON.stringify(one))), canonicalJson(one));
    assert.notEqual(canonicalJson({ ...one, attempt: 2 }), canonicalJson(one));
  });
});

describe("ledger MAC", () => {
  const key = randomBytes(32);

  test("a signed entry verifies, also after a JSON round trip and with its keys reordered", () => {
    const signed = signEntry(entry(), key);
    assert.match(signed.mac ?? "", /^[0-9a-f]{64}$/);
    assert.equal(hasValidMac(signed, key), true);
    const line = JSON.parse(JSON.stringify(signed)) as LedgerEntry;
    assert.equal(hasValidMac(line, key), true);
    assert.equal(hasValidMac(Object.fromEntries(Object.entries(line).reverse()) as LedgerEntry, key), true);
  });

  test("the MAC covers every field: any change to the entry breaks it", () => {
    const signed = signEntry(entry(), key);
    assert.equal(hasValidMac({ ...signed, verdict: "pass" }, key), false);
    assert.equal(hasValidMac({ ...signed, tree: "c".repeat(40) }, key), false);
    assert.equal(hasValidMac({ ...signed, detail: { ...signed.detail, failCount: 0 } }, key), false);
    assert.equal(hasValidMac({ ...signed, extra: 1 } as LedgerEntry, key), false);
  });

  test("another key, a missing MAC or a malformed one are rejected", () => {
    const signed = signEntry(entry(), key);
    assert.equal(hasValidMac(signed, randomBytes(32)), false);
    assert.equal(hasValidMac(entry(), key), false);
    assert.equal(hasValidMac({ ...signed, mac: signed.mac?.slice(0, 63) }, key), false);
    assert.equal(hasValidMac({ ...signed, mac: signed.mac?.toUpperCase() }, key), false);
    assert.equal(hasValidMac({ ...signed, mac: 42 } as unknown as LedgerEntry, key), false);
  });

  test("macOf ignores an existing mac field, so re-signing is stable", () => {
    const signed = signEntry(entry(), key);
    assert.equal(macOf(signed, key), signed.mac);
    assert.equal(signEntry(signed, key).mac, signed.mac);
  });
});
