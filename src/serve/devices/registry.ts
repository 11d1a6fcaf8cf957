import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveDir } from "../token.js";

export const DEVICES_FILE = "devices.json";
export const SCOPES = ["read", "answer"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Device {
  id: string;
  name: string;
  /** Ed25519, the 32 raw bytes in base64. */
  publicKey: string;
  scopes: Scope[];
  addedAt: string;
  revokedAt?: string;
}

export interface Registry {
  devices: Device[];
  /** Why the file was not used, when it was not (others may write it, or it does not parse). */
  ignored?: string;
}

export const registryFile = (root: string) => join(root, ".gantry", "serve", DEVICES_FILE);

/**
 * The enrolled devices. A file that group or others may write is ignored as a whole: anyone who could
 * write it could enrol their own key. Only `gantry devices` writes it; no route does.
 */
export function readRegistry(root: string): Registry {
  const file = registryFile(root);
  if (!existsSync(file)) return { devices: [] };
  const mode = statSync(file).mode;
  if ((mode & 0o022) !== 0)
    return {
      devices: [],
      ignored: `${file} is writable by group or others (mode ${(mode & 0o777).toString(8)}); no device is trusted until it is chmod 600`,
    };
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as { devices?: Device[] };
    return { devices: Array.isArray(value.devices) ? value.devices : [] };
  } catch {
    return { devices: [], ignored: `${file} is not JSON; no device is trusted` };
  }
}

function writeRegistry(root: string, devices: Device[]): void {
  serveDir(root);
  const file = registryFile(root);
  writeFileSync(file, `${JSON.stringify({ v: 1, devices }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function addDevice(root: string, device: Omit<Device, "id" | "addedAt">): Device {
  const { devices, ignored } = readRegistry(root);
  if (ignored) throw new Error(ignored);
  const added: Device = {
    id: `d-${randomBytes(6).toString("hex")}`,
    ...device,
    addedAt: new Date().toISOString(),
  };
  writeRegistry(root, [...devices, added]);
  return added;
}

/** Marks a device revoked (kept, so its requests are refused as revoked rather than unknown). */
export function revokeDevice(root: string, id: string): Device | undefined {
  const { devices, ignored } = readRegistry(root);
  if (ignored) throw new Error(ignored);
  const device = devices.find((d) => d.id === id);
  if (!device) return undefined;
  device.revokedAt ??= new Date().toISOString();
  writeRegistry(root, devices);
  return device;
}
