import { generateKeyPairSync, randomBytes } from "node:crypto";
import { DEVICE_HEADERS, publicKeyToBase64, signFraming } from "../../src/serve/devices/framing.js";
import { call, type Reply } from "./http.js";

/** A device's key pair, made in the test: the private key never leaves it. */
export function deviceKeys(): { privatePem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privatePem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: publicKeyToBase64(publicKey),
  };
}

export interface Signed {
  method: string;
  target: string;
  body: string;
  headers: Record<string, string>;
}

/** Signs a request as a device does; `tamper` changes what is sent after signing. */
export function signed(
  keys: { privatePem: string },
  deviceId: string,
  method: string,
  target: string,
  body = "",
  options: { timestamp?: number; nonce?: string } = {},
): Signed {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? randomBytes(18).toString("base64url");
  const signature = signFraming(keys.privatePem, { method, target, body, deviceId, timestamp, nonce });
  return {
    method,
    target,
    body,
    headers: {
      [DEVICE_HEADERS.device]: deviceId,
      [DEVICE_HEADERS.timestamp]: timestamp,
      [DEVICE_HEADERS.nonce]: nonce,
      [DEVICE_HEADERS.signature]: signature,
      ...(body ? { "content-type": "application/json" } : {}),
    },
  };
}

export const send = (port: number, request: Signed, extra: Record<string, string> = {}): Promise<Reply> =>
  call(port, request.method, request.target, {
    headers: { ...request.headers, ...extra },
    ...(request.body ? { body: request.body } : {}),
  });
