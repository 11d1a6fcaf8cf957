import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

/** The headers a device request carries (docs/serve.md, "Signing"). */
export const DEVICE_HEADERS = {
  device: "x-gantry-device",
  timestamp: "x-gantry-timestamp",
  nonce: "x-gantry-nonce",
  signature: "x-gantry-signature",
} as const;

export const FRAMING_VERSION = "gantry-device-v1";
export const DEVICE_ID_PATTERN = /^d-[0-9a-f]{12}$/;
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

export interface SignedParts {
  method: string;
  /** The request target exactly as sent: path and query. */
  target: string;
  body: Buffer | string;
  deviceId: string;
  /** Unix time in seconds, as a decimal integer. */
  timestamp: string;
  nonce: string;
}

/**
 * The bytes a device signs: seven lines, each ending in a newline — the framing version, the method in
 * upper case, the target, the SHA-256 of the body in hex (of nothing for an empty body), the device id,
 * the timestamp, the nonce. No field may hold a newline (the headers cannot).
 */
export function framing(parts: SignedParts): Buffer {
  const bodyHash = createHash("sha256").update(parts.body).digest("hex");
  const fields = [
    FRAMING_VERSION,
    parts.method.toUpperCase(),
    parts.target,
    bodyHash,
    parts.deviceId,
    parts.timestamp,
    parts.nonce,
  ];
  if (fields.some((field) => /[\r\n]/.test(field))) throw new Error("a signed field holds a newline");
  return Buffer.from(`${fields.join("\n")}\n`, "utf8");
}

/** An Ed25519 public key from its 32 raw bytes in base64 or base64url; undefined when it is not one. */
export function publicKeyFromBase64(text: string): KeyObject | undefined {
  const raw = Buffer.from(text.trim().replace(/-/g, "+").replace(/_/g, "/"), "base64");
  if (raw.length !== 32) return undefined;
  try {
    return createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
      format: "jwk",
    });
  } catch {
    return undefined;
  }
}

/** The 32 raw bytes of an Ed25519 public key, base64: the form `gantry devices add --public-key` takes. */
export function publicKeyToBase64(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  return Buffer.from(String(jwk.x), "base64url").toString("base64");
}

export function signFraming(privateKeyPem: string, parts: SignedParts): string {
  return sign(null, framing(parts), createPrivateKey(privateKeyPem)).toString("base64");
}

export function verifyFraming(key: KeyObject, parts: SignedParts, signature: string): boolean {
  const bytes = Buffer.from(signature, "base64");
  if (bytes.length !== 64) return false;
  try {
    return verify(null, framing(parts), key, bytes);
  } catch {
    return false;
  }
}
