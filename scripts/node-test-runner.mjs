#!/usr/bin/env node
// node's test runner over the files named, in the order named: `node --test` sorts its files by path,
// which on two cores leaves the longest end-to-end files running alone at the end. run-tests.mjs names
// the longest first (scripts/test-weights.json), so the short ones fill in around them. Same runner,
// same spec reporter, same isolation (a process per file); exit 1 when a test or a file fails.
// Usage: node-test-runner.mjs --concurrency=N FILE...
import { run } from "node:test";
import { spec } from "node:test/reporters";

const args = process.argv.slice(2);
const concurrency = Number(args.find((a) => a.startsWith("--concurrency="))?.split("=")[1] ?? 1);
const files = args.filter((a) => !a.startsWith("--"));
const stream = run({ files, concurrency });
stream.on("test:fail", (data) => {
  if (!data.todo) process.exitCode = 1;
});
stream.compose(new spec()).pipe(process.stdout);
