import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { jsImports, pythonImports, resolveJs, resolvePython } from "../../src/verification/import-graph.js";
import { listProjectFiles } from "../../src/verification/project-files.js";
import { scopedCommand, selectTests } from "../../src/verification/smart-runner.js";
import { isTestFile, sourceKeys, testKeys } from "../../src/verification/test-conventions.js";

const work = mkdtempSync(join(tmpdir(), "gantry-smart-"));
after(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const root = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A TypeScript project: math ← cart ← features/index ← app, each with its tests, and unrelated modules. */
const ts = project("ts", {
  "package.json": "{}\n",
  "README.md": "# fixture\n",
  "src/core/math.ts": "export const add = (a: number, b: number) => a + b;\n",
  "src/core/math.test.ts": 'import { add } from "./math.js";\n',
  "src/features/cart.ts":
    'import { add } from "../core/math.js";\nexport const total = (xs: number[]) => xs.reduce(add, 0);\n',
  "src/features/index.ts": 'export { total } from "./cart.js";\n',
  "src/app.ts": 'import {\n  total,\n} from "./features";\nexport const run = () => total([1, 2]);\n',
  "src/lazy.ts": 'export async function later() {\n  return (await import("./core/math.js")).add(1, 2);\n}\n',
  "src/legacy.cjs": 'const { upper } = require("./util/strings");\nmodule.exports = { upper };\n',
  "src/orphan.ts": "export const lonely = true;\n",
  "src/util/strings.ts": "export const upper = (s: string) => s.toUpperCase();\n",
  "src/util/strings.test.ts": 'import { upper } from "./strings.js";\n',
  "src/util/dates.ts": "export const today = () => new Date();\n",
  "src/util/__tests__/dates.test.ts": 'import { today } from "../dates.js";\n',
  "src/util/format.ts": "export const format = String;\n",
  "test/features/cart.test.ts": 'import { total } from "../../src/features/cart.js";\n',
  "test/app.test.ts": '// the app, end to end\nimport { run } from "../src/app.js";\n',
  "test/lazy.test.ts": 'import { later } from "../src/lazy.js";\n',
  "test/removed.test.ts": 'import { gone } from "../src/core/removed.js";\n',
  "test/util/strings.test.ts": 'import { upper } from "../../src/util/strings.js";\n',
  "test/util/dates.test.ts":
    'import { today } from "../../src/util/dates.js";\nimport { build } from "../helpers/build.js";\n',
  "test/util/format.test.ts": 'import { format } from "../../src/util/format.js";\n',
  "test/misc.spec.ts": "// nothing imported\n",
  "test/helpers/build.ts": "export const build = () => ({});\n",
  "test/fixtures/sample.test.ts": 'import { add } from "../../src/core/math.js";\n',
  "node_modules/dep/index.test.js": 'require("../../src/core/math.js");\n',
  "dist/core/math.test.js": 'import "../../src/core/math.js";\n',
  ".gantry/features/x/prd.json": "{}\n",
});

describe("selectTests on a TypeScript project", () => {
  test("a change deep in a module selects the tests of its importers, and not the unrelated ones", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["src/core/math.ts"] });
    assert.equal(selection.mode, "scoped", selection.reason);
    assert.deepEqual(selection.files, [
      "src/core/math.test.ts",
      "test/app.test.ts",
      "test/features/cart.test.ts",
      "test/lazy.test.ts",
    ]);
    assert.match(selection.reason, /^4 test files for 1 changed file/);
  });

  test("a changed test file selects itself", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["test/util/strings.test.ts"] });
    assert.deepEqual(selection, {
      mode: "scoped",
      files: ["test/util/strings.test.ts"],
      reason: "1 test file for 1 changed file (1 changed)",
    });
  });

  test("tests beside, in __tests__ and mirrored under test/ are found by name", async () => {
    const dates = await selectTests({ projectRoot: ts, changedFiles: ["src/util/dates.ts"] });
    assert.deepEqual(dates.files, ["src/util/__tests__/dates.test.ts", "test/util/dates.test.ts"]);
    const strings = await selectTests({ projectRoot: ts, changedFiles: ["./src/util/strings.ts"] });
    assert.deepEqual(strings.files, ["src/util/strings.test.ts", "test/util/strings.test.ts"]);
  });

  test("a changed test helper selects the tests that import it, and is not run itself", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["test/helpers/build.ts"] });
    assert.deepEqual(selection.files, ["test/util/dates.test.ts"]);
  });

  test("a deleted module selects the tests that still import it; a deleted test is not run", async () => {
    const selection = await selectTests({
      projectRoot: ts,
      changedFiles: ["src/core/removed.ts", "test/deleted.test.ts"],
    });
    assert.deepEqual(selection.files, ["test/removed.test.ts"]);
  });

  test("when no test maps, the full suite runs", async () => {
    for (const changedFiles of [["src/orphan.ts"], ["README.md", "src/orphan.ts"], ["docs/guide.md"]]) {
      const selection = await selectTests({ projectRoot: ts, changedFiles });
      assert.deepEqual(selection, { mode: "full", files: [], reason: "no test maps to the changed files" });
    }
  });

  test("unmapped changes next to mapped ones are named in the reason", async () => {
    const selection = await selectTests({
      projectRoot: ts,
      changedFiles: ["src/util/format.ts", "src/orphan.ts"],
    });
    assert.equal(selection.mode, "scoped");
    assert.deepEqual(selection.files, ["test/util/format.test.ts"]);
    assert.match(selection.reason, /no test maps to src\/orphan\.ts$/);
  });

  test("no changes at all means the full suite", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: [".gantry/features/x/prd.json"] });
    assert.equal(selection.mode, "full");
    assert.match(selection.reason, /no changed files/);
  });

  test("over the file limit, the full suite runs, and the reason says so", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["src/core/math.ts"], maxFiles: 3 });
    assert.equal(selection.mode, "full");
    assert.deepEqual(selection.files, []);
    assert.equal(selection.reason, "4 test files map to the changed files, more than the limit of 3");
  });

  test("more than half of all tests, the full suite runs", async () => {
    const selection = await selectTests({
      projectRoot: ts,
      changedFiles: ["src/core/math.ts", "src/util/strings.ts", "src/util/dates.ts"],
    });
    assert.equal(selection.mode, "full");
    assert.equal(selection.reason, "8 of 11 test files map to the changed files, more than half of them");
  });

  test("a dependency or tool configuration change means the full suite", async () => {
    for (const file of [
      "package.json",
      "tsconfig.build.json",
      "vitest.config.ts",
      "packages/a/package-lock.json",
    ]) {
      const selection = await selectTests({ projectRoot: ts, changedFiles: ["src/core/math.ts", file] });
      assert.equal(selection.mode, "full", file);
      assert.match(selection.reason, new RegExp(`^${file.replaceAll(".", "\\.")} changed`));
    }
  });

  test("an import chain deeper than the bound means the full suite", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["src/core/math.ts"], maxDepth: 2 });
    assert.equal(selection.mode, "full");
    assert.match(selection.reason, /deeper than 2 modules/);
  });

  test("dependencies, build output and fixtures are never selected", async () => {
    const selection = await selectTests({ projectRoot: ts, changedFiles: ["src/core/math.ts"], maxShare: 1 });
    for (const file of selection.files) assert.doesNotMatch(file, /^(node_modules|dist)\/|fixtures/);
  });

  test("a given file list is used instead of walking the project", async () => {
    const selection = await selectTests({
      projectRoot: ts,
      changedFiles: ["src/util/strings.ts"],
      allFiles: ["src/util/strings.ts", "test/util/strings.test.ts", "test/a.test.ts", "test/b.test.ts"],
    });
    assert.deepEqual(selection.files, ["test/util/strings.test.ts"]);
  });
});

describe("selectTests on a Python project", () => {
  const py = project("py", {
    "pyproject.toml": "[project]\nname = 'pkg'\n",
    "pkg/__init__.py": "",
    "pkg/calc.py": "def add(a, b):\n    return a + b\n",
    "pkg/service.py": "from .calc import add\n",
    "pkg/api/__init__.py": "",
    "pkg/api/routes.py": "from ..service import add as plus\n",
    "pkg/other.py": "import os\n",
    "tests/test_calc.py": "from pkg.calc import add\n",
    "tests/test_routes.py": "from pkg.api import routes\n",
    "tests/test_other.py": "import pkg.other\n",
    "tests/test_more.py": "import json\n",
    "tests/test_extra.py": "import sys\n",
    "tests/conftest.py": "",
  });

  test("relative and absolute imports carry a change to the tests of its users", async () => {
    const selection = await selectTests({ projectRoot: py, changedFiles: ["pkg/calc.py"] });
    assert.equal(selection.mode, "scoped", selection.reason);
    assert.deepEqual(selection.files, ["tests/test_calc.py", "tests/test_routes.py"]);
  });

  test("a flat tests/ directory maps by module name", async () => {
    const selection = await selectTests({ projectRoot: py, changedFiles: ["pkg/other.py"] });
    assert.deepEqual(selection.files, ["tests/test_other.py"]);
  });
});

describe("test conventions", () => {
  test("what is a test file", () => {
    const tests = [
      "src/a/b.test.ts",
      "src/a/b.spec.tsx",
      "a.test.mjs",
      "test/a/b.ts",
      "tests/a/b.js",
      "src/__tests__/b.ts",
      "tests/test_x.py",
      "pkg/x_test.py",
      "pkg/x_test.go",
      "test/cart.e2e.test.ts",
    ];
    const notTests = [
      "src/a/b.ts",
      "src/a/b.d.ts",
      "test/helpers/db.ts",
      "test/setup.ts",
      "test/fixtures/app.test.ts",
      "tests/conftest.py",
      "tests/helpers.py",
      "pkg/x.go",
      "test/data.json",
      "src/latest.ts",
      "README.md",
    ];
    for (const file of tests) assert.equal(isTestFile(file), true, file);
    for (const file of notTests) assert.equal(isTestFile(file), false, file);
  });

  test("a source and its tests share a key", () => {
    const pairs: [string, string][] = [
      ["src/a/b.ts", "src/a/b.test.ts"],
      ["src/a/b.ts", "test/a/b.test.ts"],
      ["src/a/b.ts", "tests/a/b.spec.js"],
      ["src/a/b.ts", "src/a/__tests__/b.test.ts"],
      ["src/a/b.ts", "test/b.test.ts"],
      ["src/x.py", "tests/test_x.py"],
      ["src/pkg/x.py", "tests/test_x.py"],
      ["pkg/x.go", "pkg/x_test.go"],
      ["packages/app/src/a.ts", "packages/app/test/a.test.ts"],
      ["src/a/index.ts", "test/a.test.ts"],
    ];
    for (const [source, test] of pairs) {
      const shared = sourceKeys(source).filter((key) => testKeys(test).includes(key));
      assert.ok(shared.length > 0, `${source} ↔ ${test}`);
    }
    const strangers: [string, string][] = [
      ["src/a/b.ts", "test/a/c.test.ts"],
      ["src/a/b.py", "test/a/b.test.ts"],
      ["packages/one/src/a.ts", "packages/two/test/a.test.ts"],
      ["src/a/index.ts", "test/index.test.ts"],
    ];
    for (const [source, test] of strangers) {
      const shared = sourceKeys(source).filter((key) => testKeys(test).includes(key));
      assert.deepEqual(shared, [], `${source} ↮ ${test}`);
    }
  });
});

describe("import parsing and resolution", () => {
  test("every JS/TS import form is read", () => {
    const source = [
      'import a from "./a.js";',
      "import {",
      "  b,",
      '} from "./b";',
      'import type { C } from "../c.js";',
      'export * from "./d.js";',
      'export { e } from "./e";',
      'import "./side-effect.css";',
      'const f = require("./f");',
      'const g = await import("./g.js");',
      'vi.mock("./h.js", () => ({}));',
      'import pkg from "node:fs";',
    ].join("\n");
    assert.deepEqual(jsImports(source).sort(), [
      "../c.js",
      "./a.js",
      "./b",
      "./d.js",
      "./e",
      "./f",
      "./g.js",
      "./h.js",
      "./side-effect.css",
      "node:fs",
    ]);
  });

  test("specifiers resolve NodeNext style, extensionless and to index files", () => {
    const known = new Set([
      "src/a.ts",
      "src/b.tsx",
      "src/c/index.ts",
      "src/d.mts",
      "src/e.js",
      "src/f.json",
      "x.ts",
    ]);
    assert.equal(resolveJs("src/main.ts", "./a.js", known), "src/a.ts");
    assert.equal(resolveJs("src/main.ts", "./a", known), "src/a.ts");
    assert.equal(resolveJs("src/main.ts", "./b.js", known), "src/b.tsx");
    assert.equal(resolveJs("src/main.ts", "./c", known), "src/c/index.ts");
    assert.equal(resolveJs("src/main.ts", "./c/index.js", known), "src/c/index.ts");
    assert.equal(resolveJs("src/main.ts", "./d.mjs", known), "src/d.mts");
    assert.equal(resolveJs("src/main.ts", "./e.js", known), "src/e.js");
    assert.equal(resolveJs("src/main.ts", "./f.json", known), "src/f.json");
    assert.equal(resolveJs("src/deep/main.ts", "../../x.js", known), "x.ts");
    assert.equal(resolveJs("src/main.ts", "../../outside.js", known), undefined);
    assert.equal(resolveJs("src/main.ts", "zod", known), undefined);
    assert.equal(resolveJs("src/main.ts", "./missing.js", known), undefined);
  });

  test("Python imports, relative and absolute, resolve to modules and packages", () => {
    const known = new Set([
      "pkg/__init__.py",
      "pkg/a.py",
      "pkg/sub/__init__.py",
      "pkg/sub/b.py",
      "src/lib2/c.py",
    ]);
    const from = "pkg/sub/b.py";
    const resolved = (text: string) => pythonImports(text).flatMap((imp) => resolvePython(from, imp, known));
    assert.deepEqual(resolved("from .. import a"), ["pkg/__init__.py", "pkg/a.py"]);
    assert.deepEqual(resolved("from ..a import thing"), ["pkg/a.py"]);
    assert.deepEqual(resolved("from . import (\n    b,\n)"), ["pkg/sub/__init__.py", "pkg/sub/b.py"]);
    assert.deepEqual(resolved("import pkg.a as alias, os"), ["pkg/a.py"]);
    assert.deepEqual(resolved("from lib2.c import fn  # comment"), ["src/lib2/c.py"]);
    assert.deepEqual(resolved("from ....... import nothing"), []);
  });
});

describe("listProjectFiles", () => {
  test("skips dependencies, build output, .git and .gantry", async () => {
    const { files, truncated } = await listProjectFiles(ts);
    assert.equal(truncated, false);
    assert.ok(files.includes("src/core/math.ts"));
    assert.equal(
      files.some((file) => /^(node_modules|dist|\.gantry)\//.test(file)),
      false,
    );
  });

  test("stops at its limit and says so", async () => {
    const { files, truncated } = await listProjectFiles(ts, 3);
    assert.equal(files.length, 3);
    assert.equal(truncated, true);
  });
});

describe("scopedCommand", () => {
  test("substitutes {{files}} with single-quoted files, space separated", () => {
    assert.equal(
      scopedCommand("node --test {{files}}", ["test/a.test.ts", "test/b c.test.ts"]),
      "node --test 'test/a.test.ts' 'test/b c.test.ts'",
    );
    assert.equal(
      scopedCommand("vitest run {{ files }} --reporter=json", ["a.ts"]),
      "vitest run 'a.ts' --reporter=json",
    );
    assert.equal(scopedCommand("npm test", ["a.ts"]), "npm test");
  });

  test("quotes, dollars, backticks and leading dashes reach the command as they are", () => {
    const files = [
      "it's.test.ts",
      "$HOME.test.ts",
      "`rm -rf x`.test.ts",
      "-rf.test.ts",
      "a\\b.test.ts",
      "$&.test.ts",
    ];
    const command = scopedCommand("printf '%s\\n' {{files}}", files);
    const printed = execFileSync("/bin/sh", ["-c", command], { encoding: "utf8" });
    assert.deepEqual(printed.split("\n").slice(0, -1), [
      "it's.test.ts",
      "$HOME.test.ts",
      "`rm -rf x`.test.ts",
      "./-rf.test.ts",
      "a\\b.test.ts",
      "$&.test.ts",
    ]);
  });
});
