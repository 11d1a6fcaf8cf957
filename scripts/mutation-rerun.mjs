#!/usr/bin/env node
// `node scripts/mutation-rerun.mjs src/x.ts [reports/mutation/x.json] [--timeouts]`: each mutant a Stryker report left
// alive (Survived, NoCoverage), applied alone to the file, against the target's tests as they are now. After
// tests are written for a run's survivors, this says which they kill without another whole run.
// The file is put back as it was at the end, also when interrupted.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { TARGETS } from "../stryker.config.mjs";

// --timeouts: the report's timed-out mutants too (on a loaded machine a slow run can pass for a hang).
const withTimeouts = process.argv.includes("--timeouts");
// --tests=a.test.ts,b.test.ts: these tests instead of the target's (a quick first pass with the fast ones).
const testsFlag = process.argv.find((a) => a.startsWith("--tests="));
const [file, reportPath = `reports/mutation/${file?.split("/").pop()?.replace(/\.ts$/, "")}.json`] =
  process.argv.slice(2).filter((a) => a !== "--timeouts");
const target = TARGETS.find((t) => t.mutate === file);
if (!target) {
  console.error(`mutation-rerun: no target for ${file} in stryker.config.mjs TARGETS`);
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const entry = Object.entries(report.files).find(([path]) => path.endsWith(file))?.[1];
const source = readFileSync(file, "utf8");
if (!entry || entry.source !== source) {
  console.error(`mutation-rerun: ${reportPath} does not hold ${file} as it is now`);
  process.exit(2);
}
const lineStarts = [0];
for (const line of source.split("\n")) lineStarts.push(lineStarts.at(-1) + line.length + 1);
const offset = (at) => lineStarts[at.line - 1] + at.column - 1;
const restore = () => writeFileSync(file, source);
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
  ["SIGHUP", 129],
]) {
  process.on(signal, () => {
    restore();
    process.exit(code);
  });
}

let alive = 0;
const rerun = new Set(["Survived", "NoCoverage", ...(withTimeouts ? ["Timeout"] : [])]);
const survivors = entry.mutants.filter((m) => rerun.has(m.status));
try {
  for (const mutant of survivors) {
    const [start, end] = [offset(mutant.location.start), offset(mutant.location.end)];
    writeFileSync(file, source.slice(0, start) + mutant.replacement + source.slice(end));
    // Not spawnSync: a signal to this script must be handled (the file put back) while a test run is going.
    const status = await new Promise((resolve) => {
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "--test-reporter=./scripts/mutation-reporter.mjs",
          "scripts/mutation-tests.mjs",
          ...(testsFlag ? testsFlag.slice("--tests=".length).split(",") : target.tests),
        ],
        { stdio: "ignore", timeout: 300_000, killSignal: "SIGKILL" },
      );
      child.on("close", (code) => resolve(code));
    });
    const killed = status !== 0;
    if (!killed) alive++;
    const where = `${mutant.location.start.line}:${mutant.location.start.column}`;
    console.log(
      `${killed ? "killed" : "ALIVE "} ${mutant.status === "Timeout" ? "(was a timeout) " : ""}${where} ${JSON.stringify(source.slice(start, end).slice(0, 60))} → ${JSON.stringify(mutant.replacement.slice(0, 60))}`,
    );
  }
} finally {
  restore();
}
console.log(`${survivors.length} mutants re-run alone: ${survivors.length - alive} killed, ${alive} alive`);
