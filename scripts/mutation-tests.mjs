#!/usr/bin/env node
// Stryker's command runner judges each mutant by one command's exit code. Importing the guarding test
// files into one process (node:test runs them and sets a failing exit code) starts tsx once per
// mutant instead of once per file, which is most of the cost on a small machine.
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
