#!/usr/bin/env node
// Installs the Debian packages some tests need (xmllint for the JUnit XSD check, Chromium for the HTML
// report, bubblewrap for the sandboxed agent sessions) when they are missing and this machine can: root with apt-get. Never fails the build: a test
// whose tool is still missing skips with a printed reason.
import { spawnSync } from "node:child_process";

const wanted = [
  { bin: "xmllint", pkg: "libxml2-utils" },
  { bin: "chromium", pkg: "chromium" },
  { bin: "bwrap", pkg: "bubblewrap" },
];
const has = (bin) => spawnSync("sh", ["-c", `command -v ${bin}`], { stdio: "ignore" }).status === 0;
const missing = wanted.filter((w) => !has(w.bin));
if (missing.length === 0) process.exit(0);
const names = missing.map((m) => m.pkg).join(" ");
const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
if (!isRoot || !has("apt-get") || process.env.GANTRY_SKIP_SYSTEM_SETUP) {
  console.log(
    `setup: ${names} not installed and cannot be installed here; the tests that need them will skip`,
  );
  process.exit(0);
}
console.log(`setup: installing ${names} (apt-get)`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
const run = (args, timeoutMs) =>
  spawnSync("apt-get", args, { stdio: ["ignore", "ignore", "inherit"], env, timeout: timeoutMs });
run(["update", "-qq"], 300_000);
const result = run(
  ["install", "-y", "-qq", "--no-install-recommends", ...missing.map((m) => m.pkg)],
  900_000,
);
console.log(
  result.status === 0
    ? `setup: installed ${names}`
    : `setup: could not install ${names}; the tests that need them will skip`,
);
