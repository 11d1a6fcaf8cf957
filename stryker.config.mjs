// Mutation testing of the code that decides a verdict: `npm run test:mutation` (not part of `npm test`)
// runs scripts/mutation.mjs, which runs Stryker once per target below, each with only its own tests
// (Stryker's command runner judges a mutant by the exit code of one command, so each target's run
// should not pay for the others' tests).
//   one file:    npm run test:mutation -- --mutate src/verification/status.ts
//   Stryker flags pass through, e.g. npm run test:mutation -- --mutate src/x.ts --incremental
// Reports: reports/mutation/<file name>.html and .json (git-ignored).

/** Add a file here with the node:test files that would notice a change to it. */
export const TARGETS = [
  {
    mutate: "src/verification/status.ts",
    tests: ["test/verification/status.test.ts", "test/verification/parsers/fixtures.test.ts"],
  },
  {
    mutate: "src/verification/parsers/registry.ts",
    tests: [
      "test/verification/parsers/registry.test.ts",
      "test/verification/parsers/command-runner.test.ts",
      "test/verification/parsers/fixtures.test.ts",
    ],
  },
  {
    mutate: "src/verification/parsers/command-runner.ts",
    tests: ["test/verification/parsers/command-runner.test.ts"],
  },
  {
    mutate: "src/verification/parsers/node-test.ts",
    tests: [
      "test/verification/parsers/node-test.test.ts",
      "test/verification/parsers/js-runners.test.ts",
      "test/verification/parsers/fixtures.test.ts",
    ],
  },
  {
    mutate: "src/verification/parsers/vitest.ts",
    tests: [
      "test/verification/parsers/vitest.test.ts",
      "test/verification/parsers/js-runners.test.ts",
      "test/verification/parsers/fixtures.test.ts",
    ],
  },
  {
    mutate: "src/verification/parsers/pytest.ts",
    tests: [
      "test/verification/parsers/pytest.test.ts",
      "test/verification/parsers/native-runners.test.ts",
      "test/verification/parsers/fixtures.test.ts",
    ],
  },
  {
    mutate: "src/ledger/gate-rule.ts",
    tests: ["test/ledger/gate-rule.test.ts"],
  },
  {
    mutate: "src/pipeline/runner.ts",
    tests: ["test/pipeline/runner.test.ts"],
  },
  {
    // Real git repositories: slow mutants, so only the completion stage's own tests.
    mutate: "src/stages/completion.ts",
    tests: ["test/stages/completion.test.ts"],
  },
  {
    mutate: "src/git/tamper-snapshot.ts",
    tests: ["test/git/tamper-snapshot.test.ts"],
  },
  {
    mutate: "src/runs/owned-files.ts",
    tests: ["test/runs/owned-files.test.ts"],
  },
  {
    mutate: "src/stages/session-guard.ts",
    tests: ["test/stages/session-guard.test.ts"],
  },
  {
    mutate: "src/git/ref-book.ts",
    tests: ["test/git/ref-book.test.ts"],
  },
  {
    mutate: "src/git/judge.ts",
    tests: ["test/git/judge.test.ts", "test/git/judge-cost.test.ts", "test/git/private-head.test.ts"],
  },
  {
    mutate: "src/git/judge-status.ts",
    tests: ["test/git/judge-status.test.ts"],
  },
  {
    mutate: "src/verification/strategies/test-integrity/markers.ts",
    tests: ["test/verification/test-integrity/markers.test.ts"],
  },
  {
    // The rules on commits of one shared repository; test-integrity.test.ts (whole runs) is too slow per mutant.
    mutate: "src/verification/strategies/test-integrity.ts",
    tests: ["test/verification/test-integrity-rules.test.ts"],
  },
  // The parts test-integrity.ts is made of, each with the tests that reach it most directly.
  {
    mutate: "src/verification/strategies/test-integrity/allowance.ts",
    tests: ["test/verification/test-integrity/allowance.test.ts"],
  },
  {
    mutate: "src/verification/strategies/test-integrity/config-text.ts",
    tests: ["test/verification/test-integrity/config-text.test.ts"],
  },
  {
    mutate: "src/verification/strategies/test-integrity/gantry-commands.ts",
    tests: [
      "test/verification/test-integrity/test-config-files.test.ts",
      "test/verification/test-integrity/check-config-files.test.ts",
    ],
  },
  {
    mutate: "src/verification/strategies/test-integrity/suppressions.ts",
    tests: ["test/verification/test-integrity/suppressions.test.ts"],
  },
  {
    mutate: "src/verification/strategies/test-integrity/check-config-files.ts",
    tests: [
      "test/verification/test-integrity/check-config-files.test.ts",
      "test/verification/test-integrity/named-configs.test.ts",
    ],
  },
  {
    mutate: "src/verification/strategies/test-integrity/named-configs.ts",
    tests: ["test/verification/test-integrity/named-configs.test.ts"],
  },
  {
    mutate: "src/verification/strategies/test-integrity/package-scripts.ts",
    tests: [
      "test/verification/test-integrity/test-config-rules.test.ts",
      "test/verification/test-integrity/check-config-files.test.ts",
    ],
  },
  ...["tree-diff", "patch-lines"].map((part) => ({
    mutate: `src/verification/strategies/test-integrity/${part}.ts`,
    tests: [
      "test/verification/test-integrity/patch-lines.test.ts",
      "test/verification/test-integrity/tree-diff.test.ts",
      "test/verification/test-integrity/markers.test.ts",
      "test/verification/test-integrity/suppressions.test.ts",
    ],
  })),
  {
    mutate: "src/verification/strategies/test-integrity/test-config-files.ts",
    tests: [
      "test/verification/test-integrity/test-config-rules.test.ts",
      "test/verification/test-integrity/test-config-files.test.ts",
    ],
  },
  {
    mutate: "src/verification/strategies/test-integrity/test-counts.ts",
    tests: ["test/verification/test-integrity/test-counts.test.ts"],
  },
];

/** The target scripts/mutation.mjs runs, else `--mutate a.ts,b.ts` given to Stryker directly. */
function requested(argv) {
  const at = argv.findIndex((a) => a === "--mutate" || a === "-m" || a.startsWith("--mutate="));
  if (at < 0) return undefined;
  const value = argv[at].startsWith("--mutate=") ? argv[at].slice("--mutate=".length) : argv[at + 1];
  return (value ?? "").split(",").map((s) => s.replace(/:.*$/, "").trim());
}

const wanted = process.env.GANTRY_MUTATION_TARGET
  ? [process.env.GANTRY_MUTATION_TARGET]
  : requested(process.argv);
const unknown = (wanted ?? []).filter((file) => !TARGETS.some((t) => t.mutate === file));
if (unknown.length) {
  throw new Error(`stryker.config.mjs: no target for ${unknown.join(", ")}; add it to TARGETS first`);
}
const selected = wanted ? TARGETS.filter((t) => wanted.includes(t.mutate)) : TARGETS;
const testFiles = [...new Set(selected.flatMap((t) => t.tests))];
const reportName = selected.length === 1 ? selected[0].mutate.split("/").pop().replace(/\.ts$/, "") : "all";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "command",
  commandRunner: {
    command: `node --import tsx --test-reporter=./scripts/mutation-reporter.mjs scripts/mutation-tests.mjs ${testFiles.join(" ")}`,
  },
  mutate: selected.map((t) => t.mutate),
  concurrency: 2,
  timeoutMS: 30_000,
  coverageAnalysis: "off",
  reporters: ["clear-text", "html", "json", "progress"],
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  incrementalFile: `reports/mutation/${reportName}.incremental.json`,
  // TypeScript 7 has no JavaScript API for Stryker's tsconfig rewriting, and the sandbox needs none
  // (tsx runs the sources; nothing extends a tsconfig outside the project): point it at no file.
  tsconfigFile: "stryker-no-tsconfig.json",
  // One folder per target: runs of two targets at once do not clean up each other's sandboxes.
  tempDirName: `.stryker-tmp/${reportName}`,
  cleanTempDir: "always",
  ignorePatterns: ["dist", "reports", ".gantry", "bench", ".stryker-tmp", ".test-build"],
  thresholds: { high: 90, low: 90, break: null },
};
