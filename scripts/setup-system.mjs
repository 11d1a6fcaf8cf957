#!/usr/bin/env node
// Installs the Debian packages some tests need (xmllint for the JUnit XSD check, Chromium for the HTML
// report, bubblewrap for the sandboxed agent sessions, Go for the Go project's end-to-end test) when they
// are missing and this machine can: root with apt-get. Never fails the build: a test whose tool is still missing skips with a printed reason.
// `npm test` (run-tests.mjs --prepare) starts it beside the preparation: apt-get is mostly dpkg's
// unpacking, which a fresh machine would otherwise wait for alone. bubblewrap and xmllint come first and
// every test waits for them (gantry's default sandbox, "auto", uses bwrap when it is there, so it must
// not appear in the middle of a run); Chromium and Go, the largest, come after, and only the files that
// use them wait for them (test/support/system-setup.ts).
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const BASE = [
  { bin: "xmllint", pkg: "libxml2-utils" },
  { bin: "bwrap", pkg: "bubblewrap" },
];
const BROWSER = [
  { bin: "chromium", pkg: "chromium" },
  { bin: "go", pkg: "golang-go" },
];

const has = (bin) => spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0;

/** apt-get in its own process group, killed with it at `timeoutMs`; resolves true when it exited 0. */
function aptGet(args, timeoutMs) {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  return new Promise((resolve) => {
    const child = spawn("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env, detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, timeoutMs);
    child.on("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

async function install(missing) {
  if (missing.length === 0) return;
  const names = missing.map((m) => m.pkg).join(" ");
  console.log(`setup: installing ${names} (apt-get)`);
  const ok = await aptGet(
    ["install", "-y", "-qq", "--no-install-recommends", ...missing.map((m) => m.pkg)],
    900_000,
  );
  console.log(
    ok
      ? `setup: installed ${names}`
      : `setup: could not install ${names}; the tests that need them will skip`,
  );
}

/**
 * Starts installing what is missing. `base` settles once bubblewrap and xmllint are installed (or
 * cannot be), `browser` once Chromium is, after them; neither ever rejects. `browserPending`: Chromium
 * was missing and an install of it has started.
 */
export function setupSystem() {
  const base = BASE.filter((w) => !has(w.bin));
  const browser = BROWSER.filter((w) => !has(w.bin));
  const missing = [...base, ...browser];
  const none = { base: Promise.resolve(), browser: Promise.resolve(), browserPending: false };
  if (missing.length === 0) return none;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot || !has("apt-get") || process.env.GANTRY_SKIP_SYSTEM_SETUP) {
    const names = missing.map((m) => m.pkg).join(" ");
    console.log(
      `setup: ${names} not installed and cannot be installed here; the tests that need them will skip`,
    );
    return none;
  }
  const update = aptGet(["update", "-qq"], 300_000);
  const baseDone = base.length > 0 ? update.then(() => install(base)) : Promise.resolve();
  const browserDone = Promise.all([update, baseDone]).then(() => install(browser));
  return { base: baseDone, browser: browserDone, browserPending: browser.length > 0 };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await setupSystem().browser;
