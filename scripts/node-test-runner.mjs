#!/usr/bin/env node
// node's test runner over the files named, in the order named: `node --test` sorts its files by path,
// which on two cores leaves the longest end-to-end files running alone at the end. run-tests.mjs names
// the longest first (scripts/test-weights.json), so the short ones fill in around them. Same runner,
// same spec reporter, same isolation (a process per file); exit 1 when a test or a file fails.
// With TESTS_FILE_TIMES=PATH set, each file's wall seconds (from its start to its last report) are
// written to PATH as JSON (by source path), the longest first: what scripts/test-weights.json is made from.
// Usage: node-test-runner.mjs --concurrency=N FILE...
import { writeFileSync } from "node:fs";
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
    const source = (file) =>
      relative(process.cwd(), file)
        .replace(/^\.test-build\//, "")
        .replace(/\.js$/, ".ts");
    const seconds = [...started].map(([file, at]) => [source(file), ((last.get(file) ?? at) - at) / 1000]);
    seconds.sort((a, b) => b[1] - a[1]);
    writeFileSync(timesPath, `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`);
  });
}
stream.compose(new spec()).pipe(process.stdout);
