/**
 * Scoped tests: a generated project of 200 modules in nested directories, each with its test file, each
 * module importing the one before it in its directory. One module changes: which tests selectTests
 * (src/verification/smart-runner.ts) picks and how long that takes, and `node --test` on those files
 * against `node --test` on the whole suite (real runs of the generated files).
 * Run alone: `node --import tsx bench/scoped-tests.bench.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { selectTests } from "../src/verification/smart-runner.js";
import { benchEnvironment, expectOk, median, type Row, row, timeCommand } from "./harness.js";

const AREAS = 5;
const PACKAGES = 4;
const MODULES = 10;
/** The module that changes: mid-chain, so it is reached by name and through imports. */
const CHANGED = "src/area2/pkg1/mod5.js";
const RUNS = 3;
/** The whole suite is 200 node processes (tens of seconds on 2 cores): once unless BENCH_FULL_RUNS says. */
const FULL_RUNS = Number(process.env.BENCH_FULL_RUNS ?? 1);
const SELECT_RUNS = 5;

function makeProject(): string {
  const root = mkdtempSync(join(tmpdir(), "gantry-bench-scoped-"));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  write("package.json", '{ "name": "scoped-bench", "type": "module", "private": true }\n');
  for (let a = 0; a < AREAS; a++) {
    for (let p = 0; p < PACKAGES; p++) {
      const dir = `area${a}/pkg${p}`;
      for (let m = 0; m < MODULES; m++) {
        const previous = m > 0 ? `import { value${m - 1} } from "./mod${m - 1}.js";\n` : "";
        const body = m > 0 ? `value${m - 1}(n) + 1` : "n";
        write(`src/${dir}/mod${m}.js`, `${previous}export function value${m}(n) {\n  return ${body};\n}\n`);
        write(
          `test/${dir}/mod${m}.test.js`,
          [
            'import assert from "node:assert/strict";',
            'import { test } from "node:test";',
            `import { value${m} } from "../../../src/${dir}/mod${m}.js";`,
            "",
            `test("value${m} adds ${m}", () => {`,
            `  assert.equal(value${m}(1), ${1 + m});`,
            "});",
            "",
          ].join("\n"),
        );
      }
    }
  }
  return root;
}

export async function runScopedTestsBench(): Promise<Row[]> {
  const root = makeProject();
  try {
    const total = AREAS * PACKAGES * MODULES;
    const selectTimes: number[] = [];
    let files: string[] = [];
    for (let i = 0; i < SELECT_RUNS; i++) {
      const started = performance.now();
      const selection = await selectTests({ projectRoot: root, changedFiles: [CHANGED] });
      selectTimes.push(performance.now() - started);
      if (selection.mode !== "scoped")
        throw new Error(`expected a scoped selection, got: ${selection.reason}`);
      files = selection.files;
    }
    const env = benchEnvironment();
    const scoped: number[] = [];
    const full: number[] = [];
    const run = async (args: string[]) =>
      expectOk(
        `node ${args.slice(0, 3).join(" ")}`,
        await timeCommand(process.execPath, args, { cwd: root, env }),
      ).wallMs;
    for (let i = 0; i < Math.max(RUNS, FULL_RUNS); i++) {
      if (i < RUNS) scoped.push(await run(["--test", ...files]));
      if (i < FULL_RUNS) full.push(await run(["--test"]));
    }
    const suite = median(full);
    return [
      row(
        `scoped tests: selectTests (${files.length} of ${total} test files)`,
        selectTimes,
        suite,
        "ms",
        `baseline: node --test, all ${total} files; 1 changed module`,
      ),
      row(
        `scoped tests: node --test on the ${files.length} selected`,
        scoped,
        suite,
        "ms",
        `baseline: node --test, all ${total} files`,
      ),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runScopedTestsBench().then(
    (rows) => console.table(rows),
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
