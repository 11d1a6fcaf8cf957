#!/usr/bin/env node
// Regenerates the variant corpus in test/fixtures/parsers/: what real projects print (warnings, subtests,
// coverage tables, parallel workers, reruns, workspaces, ...). Each variant writes a tiny project into a
// temporary folder, runs the REAL runner on it (stdout and stderr together, as printed) and stores the
// output with the counts the project was written to produce. The counts come from the project, never from
// gantry's parsers: `test/verification/parsers/fixtures.test.ts` then checks the parsers against them.
// The runner's exit code must be the one declared, or the variant is not written.
//
// Tools: pytest 9 (`python3 -m pytest`), Debian's pytest 7 with its plugins (`/usr/bin/python3 -m pytest`,
// apt: python3-pytest python3-pytest-xdist python3-pytest-cov python3-pytest-rerunfailures python3-pytest-subtests), node,
// vitest/jest/mocha installed from the npm registry into a temporary folder (not gantry's dependencies),
// go (apt: golang-go) and cargo. A missing tool skips its variants with a printed reason.
//
//   node scripts/capture-parser-variants.mjs [--only WORD] [--list] [--install]
// --install first installs the Debian packages above that are missing (as root, with apt-get).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { variants } from "./parser-variants/index.mjs";

const root = fileURLToPath(new URL("../test/fixtures/parsers/", import.meta.url));
const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const chosen = variants.filter((v) => !only || v.file.includes(only) || v.tool === only);
if (args.includes("--list")) {
  for (const v of chosen) console.log(`${v.file}\t${v.tool}\t${v.cmd}`);
  process.exit(0);
}

const DEBIAN_PACKAGES = [
  "python3-pytest",
  "python3-pytest-xdist",
  "python3-pytest-cov",
  "python3-pytest-rerunfailures",
  "python3-pytest-subtests",
  "golang-go",
];
if (args.includes("--install")) {
  const missing = DEBIAN_PACKAGES.filter(
    (pkg) => spawnSync("dpkg", ["-s", pkg], { stdio: "ignore" }).status !== 0,
  );
  if (missing.length > 0) {
    console.log(`capture: installing ${missing.join(" ")} (apt-get)`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env, timeout: 300_000 });
    const r = spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], {
      stdio: "inherit",
      env,
      timeout: 900_000,
    });
    if (r.status !== 0)
      console.log(`capture: could not install ${missing.join(" ")}; their variants will skip`);
  }
}

const work = mkdtempSync(join(tmpdir(), "gantry-capture-"));
const NPM_TOOLS = [
  "vitest@3.2.7",
  "@vitest/coverage-v8@3.2.7",
  "jest@30.5.2",
  "mocha@12.0.3",
  "typescript@5.9.3",
];
const sh = (cmd, cwd, env = {}, timeout = 300_000) =>
  spawnSync("sh", ["-c", `${cmd} 2>&1`], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", CI: "1", ...env },
    encoding: "utf8",
    timeout,
    killSignal: "SIGKILL",
    maxBuffer: 64 * 1024 * 1024,
  });
const has = (check) => sh(check, work, {}, 60_000).status === 0;

let npmBin;
const tools = {
  pytest: () => has("python3 -m pytest --version") || "python3 -m pytest is not installed",
  "pytest-debian": () =>
    has(
      "/usr/bin/python3 -m pytest --version && /usr/bin/python3 -c 'import xdist, pytest_cov, pytest_rerunfailures'",
    ) || "Debian's python3-pytest with python3-pytest-xdist, -cov and -rerunfailures is not installed",
  "pytest-debian-subtests": () =>
    has("/usr/bin/python3 -c 'import pytest_subtests'") ||
    "Debian's python3-pytest-subtests is not installed",
  node: () => true,
  npm: () => {
    if (npmBin) return true;
    // CAPTURE_NPM_TOOLS=DIR reuses a folder where NPM_TOOLS are already installed (npm install is slow).
    const dir = process.env.CAPTURE_NPM_TOOLS ?? join(work, "npm-tools");
    if (process.env.CAPTURE_NPM_TOOLS) {
      npmBin = join(dir, "node_modules", ".bin");
      return true;
    }
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), '{"name":"capture-tools","private":true}\n');
    const r = sh(`npm install --no-audit --no-fund --silent ${NPM_TOOLS.join(" ")}`, dir, {}, 600_000);
    if (r.status !== 0) return `npm install of ${NPM_TOOLS.join(" ")} failed: ${r.stdout.slice(-300)}`;
    npmBin = join(dir, "node_modules", ".bin");
    return true;
  },
  go: () => has("go version") || "go is not installed (apt: golang-go)",
  cargo: () => has("cargo --version") || "cargo is not installed",
};
const available = new Map();
const toolReady = (name) => {
  if (!available.has(name)) available.set(name, tools[name]());
  return available.get(name);
};

const expectedPath = join(root, "expected.json");
const captured = {};
let written = 0;
const problems = [];
for (const v of chosen) {
  const ready = toolReady(v.tool);
  if (ready !== true) {
    console.log(`skip ${v.file}: ${ready}`);
    continue;
  }
  // npm-installed tools resolve their plugins (coverage providers) from the project upwards.
  const base = v.tool === "npm" ? join(dirname(npmBin), "..", "projects") : work;
  const dir = join(base, v.file.replace(/[/.]/g, "-"));
  rmSync(dir, { recursive: true, force: true });
  for (const [name, text] of Object.entries(v.files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  if (v.setup) {
    const s = sh(v.setup, dir);
    if (s.status !== 0) {
      problems.push(`${v.file}: setup failed: ${s.stdout.slice(-500)}`);
      continue;
    }
  }
  const path = npmBin ? `${npmBin}:${process.env.PATH}` : process.env.PATH;
  const r = sh(v.cmd, dir, { PATH: path, ...(v.env ?? {}) }, v.timeoutMs);
  const exitCode = r.status ?? -1;
  if (exitCode !== v.expect.exitCode) {
    problems.push(
      `${v.file}: \`${v.cmd}\` exited ${exitCode}, expected ${v.expect.exitCode}\n${r.stdout.slice(-1500)}`,
    );
    continue;
  }
  mkdirSync(dirname(join(root, v.file)), { recursive: true });
  writeFileSync(join(root, v.file), r.stdout);
  captured[v.file] = { ...v.expect, command: v.cmd };
  written++;
  console.log(`wrote ${v.file} (exit ${exitCode})`);
}
const expected = { ...JSON.parse(readFileSync(expectedPath, "utf8")), ...captured };
const sorted = Object.fromEntries(
  Object.keys(expected)
    .sort()
    .map((k) => [k, expected[k]]),
);
writeFileSync(expectedPath, `${JSON.stringify(sorted, null, 2)}\n`);
rmSync(work, { recursive: true, force: true });
if (npmBin) rmSync(join(dirname(npmBin), "..", "projects"), { recursive: true, force: true });
console.log(`${written} of ${chosen.length} variants written`);
for (const p of problems) console.error(`problem: ${p}`);
process.exit(problems.length ? 1 : 0);
