import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { InputError } from "../config/input-error.js";
import {
  DEVICE_HEADERS,
  publicKeyFromBase64,
  publicKeyToBase64,
  signFraming,
} from "../serve/devices/framing.js";
import {
  addDevice,
  readRegistry,
  registryFile,
  revokeDevice,
  SCOPES,
  type Scope,
} from "../serve/devices/registry.js";
import { projectRoot } from "./project.js";

/** `gantry devices add`: enrols a device's Ed25519 public key with its scopes (no route can do this). */
export async function devicesAddCommand(options: {
  dir?: string;
  name?: string;
  publicKey?: string;
  scopes?: string;
}): Promise<number> {
  const root = projectRoot(options.dir);
  const name = (options.name ?? "").trim();
  if (!/^[\w .'-]{1,60}$/.test(name))
    throw new InputError(
      "--name",
      "",
      "expected a name of 1-60 letters, digits, spaces, . ' - _",
      "GANTRY_E_USAGE",
    );
  if (!options.publicKey || !publicKeyFromBase64(options.publicKey))
    throw new InputError(
      "--public-key",
      "",
      "expected an Ed25519 public key: its 32 raw bytes in base64",
      "GANTRY_E_USAGE",
    );
  const scopes = (options.scopes ?? "read").split(",").map((s) => s.trim());
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || scopes.length === 0)
    throw new InputError(
      "--scopes",
      "",
      `expected a comma-separated list of ${SCOPES.join(", ")}, got ${JSON.stringify(options.scopes)}`,
      "GANTRY_E_USAGE",
    );
  const device = addDevice(root, {
    name,
    publicKey: options.publicKey.trim(),
    scopes: [...new Set(scopes)] as Scope[],
  });
  process.stdout.write(`${device.id}\n`);
  process.stderr.write(
    `gantry devices: enrolled ${device.name} as ${device.id} (${device.scopes.join(", ")}) in ${registryFile(root)}\n`,
  );
  return 0;
}

export async function devicesListCommand(options: { dir?: string; json?: boolean }): Promise<number> {
  const root = projectRoot(options.dir);
  const { devices, ignored } = readRegistry(root);
  if (ignored) process.stderr.write(`gantry devices: ${ignored}\n`);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(devices.map(({ publicKey: _k, ...d }) => d))}\n`);
    return ignored ? 1 : 0;
  }
  if (devices.length === 0) process.stdout.write("no devices enrolled\n");
  for (const d of devices)
    process.stdout.write(
      `${d.id}  ${d.name}  ${d.scopes.join(",")}  added ${d.addedAt}${d.revokedAt ? `  REVOKED ${d.revokedAt}` : ""}\n`,
    );
  return ignored ? 1 : 0;
}

export async function devicesRevokeCommand(id: string, options: { dir?: string }): Promise<number> {
  const root = projectRoot(options.dir);
  const device = revokeDevice(root, id);
  if (!device)
    throw new InputError(
      "devices revoke",
      id,
      "no enrolled device with this id (see gantry devices list)",
      "GANTRY_E_NOT_FOUND",
    );
  process.stdout.write(`revoked ${device.id} (${device.name})\n`);
  return 0;
}

/** `gantry devices keygen`: a key pair for trying the device routes from this machine (a phone makes its own). */
export async function devicesKeygenCommand(options: { out: string }): Promise<number> {
  if (existsSync(options.out))
    throw new InputError("--out", options.out, "exists; not overwritten", "GANTRY_E_EXISTS");
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  writeFileSync(options.out, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
  process.stdout.write(`${publicKeyToBase64(publicKey)}\n`);
  return 0;
}

/**
 * `gantry devices sign`: the reference client. Signs one request as a device would; prints its headers,
 * or with --url sends it and prints the answer.
 */
export async function devicesSignCommand(options: {
  device: string;
  key: string;
  method?: string;
  target: string;
  body?: string;
  url?: string;
}): Promise<number> {
  const method = (options.method ?? "GET").toUpperCase();
  const body = options.body ?? "";
  const timestamp = String(Math.floor(Date.now() / 1000));
  const nonce = randomBytes(18).toString("base64url");
  let pem: string;
  try {
    pem = readFileSync(options.key, "utf8");
  } catch {
    throw new InputError("--key", options.key, "cannot read the private key file", "GANTRY_E_FILE");
  }
  const signature = signFraming(pem, {
    method,
    target: options.target,
    body,
    deviceId: options.device,
    timestamp,
    nonce,
  });
  const headers: Record<string, string> = {
    [DEVICE_HEADERS.device]: options.device,
    [DEVICE_HEADERS.timestamp]: timestamp,
    [DEVICE_HEADERS.nonce]: nonce,
    [DEVICE_HEADERS.signature]: signature,
    ...(body ? { "content-type": "application/json" } : {}),
  };
  if (!options.url) {
    for (const [name, value] of Object.entries(headers)) process.stdout.write(`${name}: ${value}\n`);
    return 0;
  }
  const response = await fetch(new URL(options.target, options.url), {
    method,
    headers,
    ...(body ? { body } : {}),
  });
  process.stdout.write(`${response.status} ${await response.text()}\n`);
  return response.ok ? 0 : 1;
}
