import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compareConfig,
  isTestConfigFile,
  testScripts,
} from "../../../src/verification/strategies/test-integrity/test-config-files.js";

/** The rules of test-config-files.ts on texts alone (the real-repository cases are in test-config-files.test.ts). */
describe("which files configure the tests", () => {
  it("runner config files, the shared files with a pytest section, vite configs and package.json, at any depth", () => {
    const yes = [
      "pytest.ini",
      "tests/conftest.py",
      "vitest.config.ts",
      "pkg/vitest.config.mts",
      "jest.config.cjs",
      "jest.setup.jsx",
      "vitest.workspace.js",
      "jest.config.json",
      "vitest.workspace.json",
      ".mocharc",
      ".mocharc.yml",
      "a/.mocharc.jsonc",
      "pyproject.toml",
      "setup.cfg",
      "tox.ini",
      "vite.config.ts",
      "web/vite.config.mjs",
      "package.json",
    ];
    const no = [
      "my-pytest.ini",
      "pytest.ini.bak",
      "xconftest.py",
      "conftest.pyc",
      "vitest.config.ts.orig",
      "vitest.configs.ts",
      "jest.conf.js",
      "myjest.config.js",
      "jest.config.json5",
      "xjest.config.json",
      "vitest.workspace.json.bak",
      "xvitest.workspace.json",
      ".mocharc.toml",
      ".mocharcx",
      "x.mocharc",
      "vite.config.tsx",
      "vite.config.json",
      "myvite.config.ts",
      "package.json5",
      "pyproject.toml.orig",
      "src/app.ts",
    ];
    for (const path of yes) assert.equal(isTestConfigFile(path), true, path);
    for (const path of no) assert.equal(isTestConfigFile(path), false, path);
  });
});

describe("compareConfig", () => {
  it("a whole runner config: deleted, added, or changed at its first differing line; equal texts are no change", () => {
    assert.deepEqual(compareConfig("a/pytest.ini", "[pytest]\n", undefined, []), [
      { file: "a/pytest.ini", evidence: "pytest.ini deleted: it configures the tests" },
    ]);
    assert.deepEqual(compareConfig("vitest.config.ts", undefined, "export default {}\n", []), [
      { file: "vitest.config.ts", evidence: "vitest.config.ts added: it configures the tests" },
    ]);
    assert.deepEqual(
      compareConfig(".mocharc.yml", "spec: test\nretries: 0\n", "spec: test\nretries: 3\n", []),
      [{ file: ".mocharc.yml", line: 2, evidence: ".mocharc.yml changed at line 2: retries: 3" }],
    );
    assert.deepEqual(compareConfig("pytest.ini", "same", "same", []), []);
  });

  it("a pytest section of a shared file, by its header; other sections and other files' headers are no change", () => {
    const toml = (opts: string, other = "x") =>
      `[project]\nname = "${other}"\n\n[tool.pytest.ini_options]\naddopts = "${opts}"\n`;
    assert.deepEqual(compareConfig("pyproject.toml", toml("-q"), toml("-q -x"), []), [
      { file: "pyproject.toml", line: 5, evidence: '[tool.pytest.ini_options] changed: addopts = "-q -x"' },
    ]);
    assert.deepEqual(compareConfig("pyproject.toml", toml("-q"), toml("-q", "y"), []), [], "another section");
    const exact = (v: string) => `[tool.pytest]\nminversion = "${v}"\n`;
    assert.equal(compareConfig("pyproject.toml", exact("6"), exact("7"), []).length, 1);
    const lookalike = (v: string) => `[tool.pytestx]\nminversion = "${v}"\n`;
    assert.deepEqual(compareConfig("pyproject.toml", lookalike("6"), lookalike("7"), []), []);
    const cfg = (header: string, v: string) => `[${header}]\naddopts = ${v}\n`;
    assert.deepEqual(compareConfig("setup.cfg", cfg("tool:pytest", "-q"), cfg("tool:pytest", "-x"), []), [
      { file: "setup.cfg", line: 2, evidence: "[tool:pytest] changed: addopts = -x" },
    ]);
    assert.deepEqual(compareConfig("setup.cfg", cfg("pytest", "-q"), cfg("pytest", "-x"), []), []);
    assert.deepEqual(compareConfig("tox.ini", cfg("pytest", "-q"), cfg("pytest", "-x"), []), [
      { file: "tox.ini", line: 2, evidence: "[pytest] changed: addopts = -x" },
    ]);
    assert.deepEqual(compareConfig("tox.ini", cfg("tool:pytest", "-q"), cfg("tool:pytest", "-x"), []), []);
    assert.deepEqual(
      compareConfig("tox.ini", cfg("pytest", "-q"), "[tox]\nenvlist = py3\n", []),
      [{ file: "tox.ini", evidence: "[pytest] changed: (removed: [pytest])" }],
      "a section removed: named by its old header, no line",
    );
    assert.deepEqual(compareConfig("tox.ini", undefined, cfg("pytest", "-q"), []), [
      { file: "tox.ini", line: 1, evidence: "[pytest] changed: [pytest]" },
    ]);
  });

  it("a vite config: only its test block counts, with the block's line; a removed block says so", () => {
    const vite = (test: string, port = 3000) =>
      `import { defineConfig } from "vite";\nexport default defineConfig({\n  server: { port: ${port} },\n${test}});\n`;
    const block = (env: string) => `  test: {\n    environment: "${env}",\n  },\n`;
    assert.deepEqual(compareConfig("vite.config.ts", vite(block("node")), vite(block("node"), 4000), []), []);
    assert.deepEqual(compareConfig("vite.config.ts", vite(block("node")), vite(block("jsdom")), []), [
      {
        file: "vite.config.ts",
        line: 4,
        evidence: 'the test block of vite.config.ts changed: test: { environment: "jsdom", }',
      },
    ]);
    assert.deepEqual(compareConfig("vite.config.ts", vite(block("node")), vite(""), []), [
      { file: "vite.config.ts", evidence: "the test block of vite.config.ts changed: (removed)" },
    ]);
    assert.deepEqual(compareConfig("src/other.ts", "a", "b", []), [], "not a config file");
  });

  it("package.json: the scripts the test commands reach, added, removed or changed, and the jest and mocha keys", () => {
    const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
      `${JSON.stringify({ name: "p", ...extra, scripts }, null, 2)}\n`;
    const before = pkg(
      { test: "node --test", unit: "x", build: "tsc" },
      { jest: { test: 1 }, mocha: { b: 1 } },
    );
    const after = pkg(
      { test: "true", "test:e2e": "e2e", build: "tsc -b" },
      { jest: { test: 2 }, mocha: { b: 1 } },
    );
    assert.deepEqual(compareConfig("package.json", before, after, ["npm run unit"]), [
      { file: "package.json", line: 10, evidence: 'scripts.test: "node --test" → "true"' },
      { file: "package.json", line: 11, evidence: 'scripts.test:e2e: added as "e2e"' },
      { file: "package.json", evidence: 'scripts.unit: removed (was "x")' },
      { file: "package.json", line: 3, evidence: 'the "jest" runner config changed' },
    ]);
    assert.deepEqual(compareConfig("package.json", before, "{ broken", []), [
      {
        file: "package.json",
        evidence: "package.json is no longer valid JSON: the test scripts cannot be read",
      },
    ]);
    assert.deepEqual(
      compareConfig("package.json", "{ broken", after, []),
      [],
      "unreadable before: nothing to compare",
    );
    assert.deepEqual(compareConfig("package.json", undefined, pkg({ test: "jest" }), []), [
      { file: "package.json", line: 4, evidence: 'scripts.test: added as "jest"' },
    ]);
    assert.deepEqual(compareConfig("package.json", pkg({}, { mocha: { b: 1 } }), undefined, []), [
      { file: "package.json", evidence: 'the "mocha" runner config changed' },
    ]);
  });
});

describe("testScripts", () => {
  it("every test-named script, and what the commands run through npm, pnpm, yarn and bun, followed through", () => {
    const scripts = {
      test: "npm run unit",
      pretest: "lint",
      posttest: "x",
      "test:a": "a",
      "test.b": "b",
      test_c: "c",
      "test-d": "d",
      testing: "no",
      contest: "no",
      tests: "no",
      unit: "yarn deep && bun run deeper",
      deep: "d",
      deeper: "pnpm run-script deepest",
      deepest: "e",
      other: "no",
      ci: "npm t && npm tst",
    };
    assert.deepEqual(testScripts([], scripts), [
      "deep",
      "deeper",
      "deepest",
      "posttest",
      "pretest",
      "test",
      "test-d",
      "test.b",
      "test:a",
      "test_c",
      "unit",
    ]);
    assert.deepEqual(testScripts(["npm run ci"], { ci: "npm t", t: "no" }), ["ci", "test"], "npm t is test");
    assert.deepEqual(testScripts(["npm tst"], {}), ["test"]);
    assert.deepEqual(
      testScripts(["npm  run  unit", "yarn\tlint"], { unit: "u", lint: "l" }),
      ["lint", "unit"],
      "any blanks",
    );
    assert.deepEqual(testScripts(["npx vitest", "npmrun x"], { x: "y" }), []);
    const loop = testScripts(["npm run a"], { a: "npm run b", b: "npm run a" });
    assert.deepEqual(loop, ["a", "b"], "a cycle ends");
  });
});
