#!/usr/bin/env node
// Stryker's command runner judges each mutant by one command's exit code. Importing the guarding test
// files into one process (node:test runs them and sets a failing exit code) starts tsx once per
// mutant instead of once per file, which is most of the cost on a small machine. With
// scripts/mutation-reporter.mjs the process ends at the first failing test, before the tests' own
// clean-up: their temporary folders go into one folder of this run, removed on exit.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const scratch = mkdtempSync(join(tmpdir(), "gantry-mutation-"));
process.env.TMPDIR = scratch;
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
