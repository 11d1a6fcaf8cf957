import { createHmac, timingSafeEqual } from "node:crypto";
import type { LedgerEntry } from "../model/ledger.js";
import { canonicalJson } from "../util/canonical-json.js";

/** HMAC-SHA256 (hex) over the canonical JSON (util/canonical-json.ts) of the entry without its `mac`. */
export function macOf(entry: LedgerEntry, key: Buffer): string {
  const { mac: _mac, ...signed } = entry;
  return createHmac("sha256", key).update(canonicalJson(signed)).digest("hex");
}

/** The entry with its MAC set. */
export function signEntry(entry: LedgerEntry, key: Buffer): LedgerEntry {
  return { ...entry, mac: macOf(entry, key) };
}

/** Whether the entry carries the MAC this key gives it (compared in constant time). */
export function hasValidMac(entry: LedgerEntry, key: Buffer): boolean {
  if (typeof entry.mac !== "string" || !/^[0-9a-f]{64}$/.test(entry.mac)) return false;
  return timingSafeEqual(Buffer.from(entry.mac, "hex"), Buffer.from(macOf(entry, key), "hex"));
}
