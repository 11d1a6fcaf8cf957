import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** `.gantry/serve/`: the server's token, the device registry, the nonce store and the audit log. */
export const SERVE_DIR = ".gantry/serve";
export const TOKEN_FILE = "token";

export function serveDir(root: string): string {
  const dir = join(root, SERVE_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Nothing in here belongs in the repository (a token, the enrolled keys): the directory ignores itself.
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n");
  return dir;
}

/** A fresh bearer token for this server's life, also written 0600 for scripts on this machine. */
export function createToken(root: string): { token: string; file: string } {
  const token = randomBytes(32).toString("base64url");
  const file = join(serveDir(root), TOKEN_FILE);
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // an older file keeps its mode on overwrite
  return { token, file };
}
