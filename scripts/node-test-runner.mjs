#!/usr/bin/env node
// node's test runner over the files named, in the order named: `node --test` sorts its files by path,
// which on two cores leaves the longest end-to-end files running alone at the end. run-tests.mjs names
// the longest first (scripts/test-weights.json), so the short ones fill in around them. Same runner,
// same spec reporter, same isolation (a process per file); exit 1 when a test or a file fails.
// With TESTS_FILE_TIMES=PATH set, each file's wall seconds (from its start to its last report) are
// written to PATH as JSON (by source path), the longest first (scripts/test-weights.json is made from
// TESTS_FILE_CPU's figures below, not these).
// With TESTS_FILE_CPU=PATH (and scripts/test-cpu-probe.mjs imported, as run-tests.mjs does then), each
// file's CPU seconds (user+sys of its process and the children it waited for), its process's wall
// seconds and when it started (seconds after the runner did) go to PATH, the most CPU first.
// Usage: node-test-runner.mjs --concurrency=N FILE...
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { run } from "node:test";
import { spec } from "node:test/reporters";

const args = process.argv.slice(2);
const concurrency = Number(args.find((a) => a.startsWith("--concurrency="))?.split("=")[1] ?? 1);
const files = args.filter((a) => !a.startsWith("--"));
const stream = run({ files, concurrency });
stream.on("test:fail", (data) => {
  if (!data.todo) process.exitCode = 1;
});
const source = (file) =>
  relative(process.cwd(), file)
    .replace(/^\.test-build\//, "")
    .replace(/\.js$/, ".ts");
const writeSorted = (path, entries) => {
  entries.sort((a, b) => (b[1].cpu ?? b[1]) - (a[1].cpu ?? a[1]));
  writeFileSync(path, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
};
const cpuPath = process.env.TESTS_FILE_CPU;
if (cpuPath) rmSync(`${cpuPath}.parts`, { force: true });
if (cpuPath)
  process.on("exit", () => {
    const parts = `${cpuPath}.parts`;
    const lines = existsSync(parts) ? readFileSync(parts, "utf8").split("\n").filter(Boolean) : [];
    const since = (ms) => Math.round(ms - performance.timeOrigin) / 1000;
    const entries = lines
      .map((line) => JSON.parse(line))
      .map(([file, cpu, start, end]) => [
        source(file),
        { cpu, wall: (end - start) / 1000, start: since(start) },
      ]);
    writeSorted(cpuPath, entries);
    rmSync(parts, { force: true });
  });
const timesPath = process.env.TESTS_FILE_TIMES;
if (timesPath) {
  const started = new Map();
  const last = new Map();
  stream.on("test:dequeue", (data) => {
    if (data.file && data.name === data.file) started.set(data.file, Date.now());
  });
  for (const event of ["test:pass", "test:fail"])
    stream.on(event, (data) => {
      if (data.file) last.set(data.file, Date.now());
    });
  process.on("exit", () => {
    writeSorted(
      timesPath,
      [...started].map(([file, at]) => [source(file), ((last.get(file) ?? at) - at) / 1000]),
    );
  });
}
stream.compose(new spec()).pipe(process.stdout);
