#!/usr/bin/env node
// `npm test`'s steps before the first test, run side by side rather than one after the other: Biome,
// the layer check, the bundle (esbuild) and the type check that also compiles the tests (tsc over
// src, test, scripts and bench, the same compiler options as tsconfig.json). None reads what another
// writes: the compiled tree links dist/ only once all four are done. On two cores this takes the wall
// time of the longest step plus what the others add, not their sum. Each step's output is printed
// whole when it ends, so the logs do not interleave.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { compileCommand, linkResources, OUT, REPO } from "./compile-tests.mjs";

const bin = (name) => join(REPO, "node_modules", ".bin", name);

/** [label, program, args]: what `npm run lint` and `npm run build` run, less the second tsc pass. */
const STEPS = [
  ["lint: biome", bin("biome"), ["check", "."]],
  ["lint: layers", bin("depcruise"), ["src", "--config", ".dependency-cruiser.cjs"]],
  ["build", process.execPath, [join(REPO, "scripts", "build.mjs")]],
  ["typecheck and compile the tests", ...compileCommand()],
];

function step([label, program, args]) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    // A safety stop only: each of these takes seconds.
    const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
    const done = (code, error) => {
      clearTimeout(timer);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const verdict = code === 0 ? "ok" : `failed (${error ?? `exit ${code}`})`;
      process.stdout.write(`# ${label}: ${verdict}, ${seconds} s\n${output}`);
      resolve(code === 0);
    };
    child.on("error", (error) => done(null, error.message));
    child.on("close", (code) => done(code));
  });
}

/** True when every step passed; then .test-build/ holds the compiled tests with their resources linked. */
export async function prepareTests() {
  rmSync(OUT, { recursive: true, force: true });
  const results = await Promise.all(STEPS.map(step));
  if (results.includes(false)) return false;
  linkResources();
  return true;
}
