import { existsSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Longer than scripts/setup-system.mjs's apt-get timeouts together (5 + 15 + 15 minutes). */
const LONGEST_INSTALL_MS = 36 * 60_000;

/**
 * Resolves once the late installs (Chromium, Go) have ended, when `npm test` started them beside the
 * tests: run-tests.mjs then names in TESTS_BROWSER_READY a file it writes when apt-get is done (installed
 * or not). A file that opens Chromium or runs Go waits here rather than looking for it while dpkg is
 * still unpacking it.
 */
export async function browserInstallEnded(): Promise<void> {
  const marker = process.env.TESTS_BROWSER_READY;
  if (!marker) return;
  const deadline = Date.now() + LONGEST_INSTALL_MS;
  while (!existsSync(marker) && Date.now() < deadline) await sleep(250);
}
