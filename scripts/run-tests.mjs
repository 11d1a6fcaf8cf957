#!/usr/bin/env node
// Node 20's --test has no glob: find test files here and hand them to node's runner through tsx.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { compileTests, OUT, REPO } from "./compile-tests.mjs";
import { prepareTests } from "./prepare-tests.mjs";
import { setupSystem } from "./setup-system.mjs";

const roots = process.argv.slice(2).filter((a) => !a.startsWith("-"));
// `*.full.test.ts` are the long end-to-end profiles: run by `npm run test:full` (--full), or when named.
const full = process.argv.includes("--full") || process.env.GANTRY_TEST_PROFILE === "full";
// --compiled: type-check and compile once, then run the JavaScript without tsx. --prepare (npm test): the
// same, with lint and the build run beside the compile (scripts/prepare-tests.mjs).
const prepare = process.argv.includes("--prepare");
const compiled = prepare || process.argv.includes("--compiled");
const own = new Set(["--full", "--compiled", "--prepare"]);
const flags = process.argv.slice(2).filter((a) => a.startsWith("-") && !own.has(a));
let leftOut = 0;
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name === "fixtures" || name === "node_modules") continue;
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".full.test.ts") && !full) leftOut += 1;
    else if (name.endsWith(".test.ts")) files.push(path);
  }
};
for (const root of roots.length ? roots : ["test"]) {
  if (statSync(root).isDirectory()) walk(root);
  else files.push(root);
}
if (leftOut > 0)
  console.log(`# ${leftOut} long end-to-end files (*.full.test.ts) left out: npm run test:full runs them`);
// Most tests wait on child processes (git, node, the built CLI), so three files at a time keep two cores
// busy. TESTS_CONCURRENCY sets another number (to compare).
const PLACES = Number(process.env.TESTS_CONCURRENCY ?? 3);
const concurrency = flags.some((f) => f.startsWith("--test-concurrency"))
  ? []
  : [`--test-concurrency=${PLACES}`];
// npm test installs the system packages tests need beside the preparation (scripts/setup-system.mjs).
const setup = prepare ? setupSystem() : undefined;
let browserInstalling = setup?.browserPending ?? false;
setup?.browser.then(() => {
  browserInstalling = false;
});
if (prepare ? !(await prepareTests()) : compiled && !compileTests()) {
  await setup?.browser;
  process.exit(1);
}
await setup?.base;
const run = compiled ? files.map((f) => join(OUT, relative(REPO, f)).replace(/\.ts$/, ".js")) : files;
const loader = compiled ? [] : ["--import", "tsx"];
// The whole compiled suite with no flags of the caller's (npm test): the longest files first, through
// node's run() (scripts/node-test-runner.mjs), since `node --test` orders files by path.
const ordered = compiled && flags.length === 0;
// TESTS_FILE_CPU: each file's process loads the probe that records its CPU (node-test-runner.mjs).
const probe = process.env.TESTS_FILE_CPU ? ["--import", join(REPO, "scripts", "test-cpu-probe.mjs")] : [];
const args = ordered
  ? [
      ...probe,
      join(REPO, "scripts", "node-test-runner.mjs"),
      `--concurrency=${PLACES}`,
      ...longestFirst(files, run, browserInstalling),
    ]
  : [...loader, "--test", "--test-reporter=spec", ...concurrency, ...flags, ...run];
// gantry keeps ledger keys under $XDG_STATE_HOME/gantry: tests get their own, never the user's.
const state = mkdtempSync(join(tmpdir(), "gantry-test-state-"));
const env = { ...process.env, XDG_STATE_HOME: state };
if (browserInstalling) {
  // The files that open Chromium wait for this file before they look for it (test/support/system-setup.ts).
  // Not a GANTRY_ name: the agent adapter tests compare every GANTRY_ variable a session is given.
  env.TESTS_BROWSER_READY = join(state, "browser-ready");
  setup?.browser.then(() => writeFileSync(env.TESTS_BROWSER_READY, "done\n"));
}
const status = await runTests(args, env);
await setup?.browser;
rmSync(state, { recursive: true, force: true });
process.exit(status);

/**
 * The test runner's exit status; a safety stop only at an hour (the suite takes minutes). The runner and the
 * test files it starts are a process group of their own: the stop, and a Ctrl-C or SIGTERM passed on, reach
 * every one of them, not only the runner.
 */
function runTests(args, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit", env, detached: true });
    const group = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group has ended
      }
    };
    const timer = setTimeout(() => group("SIGKILL"), 3_600_000);
    process.on("SIGINT", group);
    process.on("SIGTERM", group);
    child.on("close", (code) => {
      clearTimeout(timer);
      process.off("SIGINT", group);
      process.off("SIGTERM", group);
      resolve(code ?? 1);
    });
  });
}

/**
 * The files to run (`run`, in the order of `files`), the ones that take longest first: by
 * scripts/test-weights.json (CPU seconds of each file's process tree, user+sys, measured with
 * TESTS_FILE_CPU: the suite is CPU-bound, so CPU is what a file holds the two cores for), else 10 for an
 * end-to-end or chaos file and 1 for the rest; files of the same weight keep their path order. While
 * Chromium is still being installed, the files that open it come where a file would start about a
 * minute into the run, so that they do not hold a place waiting for it.
 */
function longestFirst(files, run, browserInstalling) {
  const weights = JSON.parse(readFileSync(join(REPO, "scripts", "test-weights.json"), "utf8"));
  const weight = (file) => {
    const path = relative(REPO, file).split(sep).join("/");
    return weights[path] ?? (/^test\/(e2e|chaos)\//.test(path) ? 10 : 1);
  };
  const order = files
    .map((file, i) => ({ run: run[i], weight: weight(file), i }))
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  if (!browserInstalling) return order.map((f) => f.run);
  const opensBrowser = (f) => /support\/chromium\.js|\.\/cdp\.js/.test(readFileSync(files[f.i], "utf8"));
  const later = order.filter(opensBrowser);
  const rest = order.filter((f) => !later.includes(f));
  // The places share two cores, so a CPU second on each takes about places / 2 seconds of wall.
  const places = new Array(PLACES).fill(0);
  let at = 0;
  for (; at < rest.length; at += 1) {
    const start = Math.min(...places);
    if ((start * PLACES) / 2 >= 60) break;
    places[places.indexOf(start)] = start + rest[at].weight;
  }
  console.log(
    `# Chromium is still being installed: the ${later.length} files that open it start after ${at} others`,
  );
  return [...rest.slice(0, at), ...later, ...rest.slice(at)].map((f) => f.run);
}
