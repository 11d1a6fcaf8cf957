import { existsSync } from "node:fs";
import { browserInstallEnded } from "./system-setup.js";

/** Debian's Chromium, installed by scripts/setup-system.mjs where it can be. */
export const CHROMIUM = "/usr/bin/chromium";

await browserInstallEnded();

/** Why the browser checks cannot run here, or false when they can. */
export const chromiumMissing: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is not installed (Debian package chromium)`;

/** Headless Chromium that talks to no network and keeps its profile in `userDataDir`. */
export function headlessFlags(userDataDir: string): string[] {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    `--user-data-dir=${userDataDir}`,
  ];
}
