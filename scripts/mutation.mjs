#!/usr/bin/env node
// `npm run test:mutation [-- --mutate a.ts,b.ts:10-40] [stryker flags]`: one Stryker run per target of
// stryker.config.mjs (each with only the tests that guard it), then the score of each file.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { TARGETS } from "../stryker.config.mjs";

const args = process.argv.slice(2);
const at = args.findIndex((a) => a === "--mutate" || a === "-m" || a.startsWith("--mutate="));
let wanted;
if (at >= 0) {
  const inline = args[at].startsWith("--mutate=");
  wanted = (inline ? args[at].slice("--mutate=".length) : (args[at + 1] ?? "")).split(",").filter(Boolean);
  args.splice(at, inline ? 1 : 2);
}
// `file.ts:10-40` mutates only those lines of a target; the target is found by its file.
const fileOf = (spec) => spec.replace(/:.*$/, "");
const targets = wanted ? TARGETS.filter((t) => wanted.some((w) => fileOf(w) === t.mutate)) : TARGETS;
const unknown = (wanted ?? []).filter((spec) => !TARGETS.some((t) => t.mutate === fileOf(spec)));
if (unknown.length) {
  console.error(`test:mutation: no target for ${unknown.join(", ")} in stryker.config.mjs TARGETS`);
  process.exit(2);
}

const scores = [];
let failed = false;
for (const target of targets) {
  const run = spawnSync(
    process.execPath,
    [
      "node_modules/@stryker-mutator/core/bin/stryker.js",
      "run",
      "--mutate",
      wanted?.find((w) => fileOf(w) === target.mutate) ?? target.mutate,
      ...args,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, GANTRY_MUTATION_TARGET: target.mutate },
    },
  );
  if (run.status !== 0) failed = true;
  scores.push([target.mutate, score(target.mutate)]);
}
console.log("\nmutation score per file (killed + timed out) / (killed + timed out + survived + no coverage)");
for (const [file, s] of scores) console.log(`  ${s ?? "no report"}  ${file}`);
process.exit(failed ? 1 : 0);

function score(file) {
  const name = file.split("/").pop().replace(/\.ts$/, "");
  const path = `reports/mutation/${name}.json`;
  if (!existsSync(path)) return undefined;
  const report = JSON.parse(readFileSync(path, "utf8"));
  const entry = Object.entries(report.files).find(([p]) => p.endsWith(file))?.[1];
  if (!entry) return undefined;
  const count = (status) => entry.mutants.filter((m) => m.status === status).length;
  const detected = count("Killed") + count("Timeout");
  const valid = detected + count("Survived") + count("NoCoverage");
  const survivors = entry.mutants.filter((m) => m.status === "Survived").length;
  return `${((100 * detected) / valid).toFixed(2)}% (${detected}/${valid}, ${survivors} survived)`;
}
