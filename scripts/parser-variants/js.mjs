// node:test, vitest, jest and mocha variants. vitest, jest and mocha come from the npm registry into a
// temporary folder (tool "npm"); node:test is node's own.
import { expect } from "./expect.mjs";

const PKG = '{"name":"capture","private":true,"type":"module"}\n';
const CJS = '{"name":"capture","private":true}\n';

/** 3 passing tests in math.test.js and 1 in util.test.js (ESM, vitest or node:test style). */
const mathTests = (api) => ({
  "package.json": PKG,
  "src/math.js":
    "export const add = (a, b) => a + b;\nexport function unused(x) {\n  if (x) return 1;\n  return 0;\n}\n",
  "math.test.js": `${api}
import { add } from "./src/math.js";

test("adds", () => {
  expect(add(1, 2)).toBe(3);
});
describe("strings", () => {
  test("concatenates", () => {
    expect("a" + "b").toBe("ab");
  });
  test("uppercases", () => {
    expect("a".toUpperCase()).toBe("A");
  });
});
`,
  "util.test.js": `${api}
test("parses an integer", () => {
  expect(Number.parseInt("42", 10)).toBe(42);
});
`,
});
const VITEST_API = 'import { describe, expect, test } from "vitest";';

/** Two vitest projects (workspace): `core` with 2 passing tests, `web` with 1 passing and 1 failing. */
const vitestProjects = {
  "package.json": PKG,
  "vitest.config.js": `import { defineConfig } from "vitest/config";
export default defineConfig({
  test: {
    projects: [
      { test: { name: "core", include: ["packages/core/**/*.test.js"] } },
      { test: { name: "web", include: ["packages/web/**/*.test.js"] } },
    ],
  },
});
`,
  "packages/core/core.test.js": `${VITEST_API}
test("core adds", () => expect(1 + 1).toBe(2));
test("core joins", () => expect("a" + "b").toBe("ab"));
`,
  "packages/web/web.test.js": `${VITEST_API}
test("web renders", () => expect("<p>").toContain("p"));
test("web escapes", () => expect("&amp;").toBe("&"));
`,
};

/** vitest typecheck mode: a type test that holds and one that does not, plus a runtime test file. */
const vitestTypecheck = {
  "package.json": PKG,
  "tsconfig.json":
    '{"compilerOptions":{"strict":true,"module":"ESNext","moduleResolution":"Bundler","target":"ES2022","noEmit":true},"include":["*.ts"]}\n',
  "types.test-d.ts": `import { expectTypeOf, test } from "vitest";
const add = (a: number, b: number): number => a + b;
test("add returns a number", () => {
  expectTypeOf(add(1, 2)).toEqualTypeOf<number>();
});
test("add takes numbers", () => {
  expectTypeOf(add).parameter(0).toEqualTypeOf<string>();
});
`,
  "math.test.ts": `import { expect, test } from "vitest";
test("adds", () => expect(1 + 2).toBe(3));
`,
};

/** A test file whose import does not resolve, next to one that passes. */
const vitestImportErr = {
  "package.json": PKG,
  "ok.test.js": `${VITEST_API}
test("works", () => expect(1).toBe(1));
test("still works", () => expect(2).toBe(2));
`,
  "broken.test.js": `${VITEST_API}
import { thing } from "./does-not-exist.js";
test("uses thing", () => expect(thing).toBe(1));
`,
};

/** jest (CommonJS): 3 passing tests, one of which logs to the console. */
const jestTests = {
  "package.json": CJS,
  "math.js": "exports.add = (a, b) => a + b;\nexports.unused = (x) => (x ? 1 : 0);\n",
  "math.test.js": `const { add } = require("./math");
test("adds", () => {
  console.log("adding", 1, 2);
  expect(add(1, 2)).toBe(3);
});
describe("strings", () => {
  test("concatenates", () => expect("a" + "b").toBe("ab"));
});
`,
  "util.test.js": `test("parses an integer", () => {
  console.warn("about to parse");
  expect(Number.parseInt("42", 10)).toBe(42);
});
`,
};
const jestFailing = {
  ...jestTests,
  "util.test.js": `test("parses an integer", () => {
  console.warn("about to parse");
  expect(Number.parseInt("42", 10)).toBe(43);
});
`,
};

/** jest with two projects (`api` 2 tests, `ui` 1 test, one of them failing when `failing`). */
const jestProjects = (failing) => ({
  "package.json": CJS,
  "jest.config.js": `module.exports = {
  projects: [
    { displayName: "api", testMatch: ["<rootDir>/api/**/*.test.js"] },
    { displayName: "ui", testMatch: ["<rootDir>/ui/**/*.test.js"] },
  ],
};
`,
  "api/a.test.js":
    'test("api adds", () => expect(1 + 1).toBe(2));\ntest("api joins", () => expect("a" + "b").toBe("ab"));\n',
  "ui/b.test.js": `test("ui renders", () => expect("<p>").toBe(${failing ? '"<div>"' : '"<p>"'}));\n`,
});

/** node:test: nested suites three deep and a test with a subtest (node counts both), 8 tests, one failing when `failing`. */
const nodeNested = (failing) => ({
  "package.json": PKG,
  "test/nested.test.js": `import assert from "node:assert/strict";
import { describe, it, test } from "node:test";

describe("level 1", () => {
  it("top", () => assert.equal(1, 1));
  describe("level 2", () => {
    it("middle", () => assert.equal(2, 2));
    describe("level 3", () => {
      it("deep", () => assert.equal(3, ${failing ? 4 : 3}));
      it("deep too", () => assert.equal("a", "a"));
    });
  });
});

test("with subtests", async (t) => {
  await t.test("sub", () => assert.ok(true));
});
`,
  "test/other.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
test("other", () => assert.ok(true));
test("other two", () => assert.ok(true));
`,
});

/** node --test-only: of 3 tests one is marked only. */
const nodeOnly = {
  "package.json": PKG,
  "only.test.js": `import assert from "node:assert/strict";
import { test } from "node:test";
test("not this one", () => assert.ok(true));
test.only("only this one", () => assert.ok(true));
test("nor this one", () => assert.ok(true));
`,
};

/** mocha (CommonJS): 4 tests in two files; `flaky` fails on its first try only (retries). */
const mochaTests = (flaky) => ({
  "package.json": CJS,
  "test/a.spec.js": `const assert = require("node:assert");
let tries = 0;
describe("a", function () {
  ${flaky ? "this.retries(2);" : ""}
  it("adds", () => assert.strictEqual(1 + 1, 2));
  it("${flaky ? "is flaky" : "joins"}", () => {
    tries++;
    ${flaky ? 'if (tries < 2) throw new Error("flaky: first try fails");' : 'assert.strictEqual("a" + "b", "ab");'}
  });
});
`,
  "test/b.spec.js": `const assert = require("node:assert");
describe("b", () => {
  it("parses", () => assert.strictEqual(Number.parseInt("42", 10), 42));
  it("uppercases", () => assert.strictEqual("a".toUpperCase(), "A"));
});
`,
});
const mochaFailing = {
  ...mochaTests(false),
  "test/b.spec.js": `const assert = require("node:assert");
describe("b", () => {
  it("parses", () => assert.strictEqual(Number.parseInt("42", 10), 43));
  it("uppercases", () => assert.strictEqual("a".toUpperCase(), "A"));
});
`,
};

export const jsVariants = [
  // node:test
  {
    file: "node-test/nested.spec.log",
    tool: "node",
    files: nodeNested(false),
    cmd: "node --test --test-reporter=spec",
    expect: expect(0, "PASS", "node-test", [8, 0, 0]),
  },
  {
    file: "node-test/nestedfail.spec.log",
    tool: "node",
    files: nodeNested(true),
    cmd: "node --test --test-reporter=spec",
    expect: expect(1, "TEST_FAILURE", "node-test", [7, 1, 0], ["level 1 > level 2 > level 3 > deep"]),
  },
  {
    file: "node-test/nestedfail.tap.log",
    tool: "node",
    files: nodeNested(true),
    cmd: "node --test --test-reporter=tap",
    expect: expect(1, "TEST_FAILURE", "node-test", [7, 1, 0], ["level 1 > level 2 > level 3 > deep"]),
  },
  {
    file: "node-test/concurrency.spec.log",
    tool: "node",
    files: nodeNested(false),
    cmd: "node --test --test-concurrency=2 --test-reporter=spec",
    expect: expect(0, "PASS", "node-test", [8, 0, 0]),
  },
  {
    file: "node-test/only.spec.log",
    tool: "node",
    files: nodeOnly,
    cmd: "node --test --test-only --test-reporter=spec",
    expect: expect(0, "PASS", "node-test", [1, 0, 2]),
  },
  // vitest
  {
    file: "vitest/coverage.default.log",
    tool: "npm",
    files: mathTests(VITEST_API),
    cmd: "vitest run --coverage --coverage.provider=v8 --coverage.reporter=text",
    expect: expect(0, "PASS", "vitest", [4, 0, 0]),
  },
  {
    file: "vitest/projects.default.log",
    tool: "npm",
    files: vitestProjects,
    cmd: "vitest run",
    expect: expect(1, "TEST_FAILURE", "vitest", [3, 1, 0], ["web escapes"]),
  },
  {
    file: "vitest/projects.verbose.log",
    tool: "npm",
    files: vitestProjects,
    cmd: "vitest run --reporter=verbose",
    expect: expect(1, "TEST_FAILURE", "vitest", [3, 1, 0], ["web escapes"]),
  },
  {
    file: "vitest/pass.dot.log",
    tool: "npm",
    files: mathTests(VITEST_API),
    cmd: "vitest run --reporter=dot",
    expect: expect(0, "PASS", "vitest", [4, 0, 0]),
  },
  {
    file: "vitest/projects.dot.log",
    tool: "npm",
    files: vitestProjects,
    cmd: "vitest run --reporter=dot",
    expect: expect(1, "TEST_FAILURE", "vitest", [3, 1, 0], ["web escapes"]),
  },
  {
    file: "vitest/pass.silent.log",
    tool: "npm",
    files: mathTests(VITEST_API),
    cmd: "vitest run --silent",
    expect: expect(0, "PASS", "vitest", [4, 0, 0]),
  },
  {
    file: "vitest/typecheck.default.log",
    tool: "npm",
    files: vitestTypecheck,
    cmd: "vitest run --typecheck",
    expect: expect(1, "TEST_FAILURE", "vitest", [2, 1, 0], ["add takes numbers"]),
  },
  {
    file: "vitest/importerr.default.log",
    tool: "npm",
    files: vitestImportErr,
    cmd: "vitest run",
    expect: expect(1, "BUILD_ERROR", "vitest", [2, 0, 0], ["broken.test.js"]),
  },
  // jest
  {
    file: "jest/coverage.default.log",
    tool: "npm",
    files: jestTests,
    cmd: "jest --ci --coverage",
    expect: expect(0, "PASS", "jest", [3, 0, 0]),
  },
  {
    file: "jest/pass.silent.log",
    tool: "npm",
    files: jestTests,
    cmd: "jest --ci --silent",
    expect: expect(0, "PASS", "jest", [3, 0, 0]),
  },
  {
    file: "jest/console.default.log",
    tool: "npm",
    files: jestTests,
    cmd: "jest --ci",
    expect: expect(0, "PASS", "jest", [3, 0, 0]),
  },
  {
    file: "jest/fail.silent.log",
    tool: "npm",
    files: jestFailing,
    cmd: "jest --ci --silent",
    expect: expect(1, "TEST_FAILURE", "jest", [2, 1, 0], ["parses an integer"]),
  },
  {
    file: "jest/projects.default.log",
    tool: "npm",
    files: jestProjects(false),
    cmd: "jest --ci",
    expect: expect(0, "PASS", "jest", [3, 0, 0]),
  },
  {
    file: "jest/projectsfail.default.log",
    tool: "npm",
    files: jestProjects(true),
    cmd: "jest --ci",
    expect: expect(1, "TEST_FAILURE", "jest", [2, 1, 0], ["ui renders"]),
  },
  {
    file: "jest/jsonfile.default.log",
    tool: "npm",
    files: jestFailing,
    cmd: "jest --ci --json --outputFile=report.json",
    expect: expect(1, "TEST_FAILURE", "jest", [2, 1, 0], ["parses an integer"]),
  },
  // mocha
  {
    file: "mocha/parallel.spec.log",
    tool: "npm",
    files: mochaTests(false),
    cmd: "mocha --parallel",
    expect: expect(0, "PASS", "mocha", [4, 0, 0]),
  },
  {
    file: "mocha/parallelfail.spec.log",
    tool: "npm",
    files: mochaFailing,
    cmd: "mocha --parallel",
    expect: expect(1, "TEST_FAILURE", "mocha", [3, 1, 0], ["b > parses"]),
  },
  {
    file: "mocha/retries.spec.log",
    tool: "npm",
    files: mochaTests(true),
    cmd: "mocha",
    expect: expect(0, "PASS", "mocha", [4, 0, 0]),
  },
  {
    file: "mocha/retries.tap.log",
    tool: "npm",
    files: mochaTests(true),
    cmd: "mocha --reporter tap",
    expect: expect(0, "PASS", "tap", [4, 0, 0]),
  },
];
